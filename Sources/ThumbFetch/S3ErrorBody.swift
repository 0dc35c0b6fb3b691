/// S3's error answers: `<Error><Code>NoSuchKey</Code>...</Error>`. Only the code is read, for the
/// log; a body that holds none (a proxy's page, a HEAD) gives nil.
enum S3ErrorBody {
    static func code(in body: [UInt8]) -> String? {
        let text = String(decoding: body.prefix(4096), as: UTF8.self)
        guard let open = text.range(of: "<Code>"),
              let close = text.range(of: "</Code>", range: open.upperBound..<text.endIndex) else { return nil }
        let code = text[open.upperBound..<close.lowerBound]
        guard (1...64).contains(code.count), code.allSatisfy({ $0.isLetter || $0.isNumber }) else { return nil }
        return String(code)
    }
}
