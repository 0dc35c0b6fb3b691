/// A source URL as it goes on the wire. A plain source is percent-decoded when the URL is parsed
/// (imgproxy's rule), so it may hold spaces and UTF-8 that no request line may carry: they are
/// escaped again here, after the authority (curl turns a UTF-8 host into punycode itself), as Go's
/// `net/url` escapes them for imgproxy's fetcher. An escape already there is kept as it is, so a
/// URL that needs nothing is unchanged and escaping twice changes nothing.
public enum URLEscaping {
    public static func escaped(_ url: String) -> String {
        let bytes = Array(url.utf8)
        guard bytes.contains(where: needsEscape) else { return url }
        let start = authorityEnd(bytes)
        var result = Array(bytes[..<start])
        for byte in bytes[start...] {
            if needsEscape(byte) {
                result += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            } else {
                result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Controls, space, what is not ASCII, and the ASCII that RFC 3986 allows nowhere in a URL.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte >= 0x7F || Array(#""<>\^`{|}"#.utf8).contains(byte)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Where the path begins: after `scheme://authority`.
    private static func authorityEnd(_ bytes: [UInt8]) -> Int {
        let separator = Array("://".utf8)
        guard let schemeEnd = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else { return 0 }
        let authority = schemeEnd + separator.count
        return bytes[authority...].firstIndex { [UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains($0) }
            ?? bytes.endIndex
    }
}
