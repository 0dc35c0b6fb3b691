/// The decoding nginx applies to the request path before it becomes DOCUMENT_URI: the query is
/// cut off and %XX escapes are turned into bytes. A raw path whose decoding differs from
/// DOCUMENT_URI was normalised further by nginx (dot segments, merged slashes), and storing it
/// would put a thumbnail where another URL finds it.
enum URIDecoding {
    static func decodedPath(_ requestURI: String) -> String? {
        let path = requestURI.utf8.prefix { $0 != UInt8(ascii: "?") }
        guard let bytes = PercentDecoding.decode(path), !bytes.contains(0) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}
