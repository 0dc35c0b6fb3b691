import Foundation

/// The text of one element of the small XML documents S3 and STS answer with
/// (`<Error><Code>NoSuchKey</Code>...`, `<Credentials><AccessKeyId>...`): the first such element,
/// its entities decoded; nil when there is none (a proxy's page, a HEAD).
enum S3XMLText {
    static func value(of element: String, in body: [UInt8]) -> String? {
        let text = String(decoding: body.prefix(64 * 1024), as: UTF8.self)
        guard let open = text.range(of: "<\(element)>"),
              let close = text.range(of: "</\(element)>", range: open.upperBound..<text.endIndex) else { return nil }
        return text[open.upperBound..<close.lowerBound]
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
