/// The decoding nginx applies to the request path before it becomes DOCUMENT_URI: the query is
/// cut off and %XX escapes are turned into bytes. A raw path whose decoding differs from
/// DOCUMENT_URI was normalised further by nginx (dot segments, merged slashes), and storing it
/// would put a thumbnail where another URL finds it.
enum URIDecoding {
    static func decodedPath(_ requestURI: String) -> String? {
        let path = requestURI.utf8.prefix { $0 != UInt8(ascii: "?") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(path.count)
        var iterator = path.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        guard !bytes.contains(0) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
