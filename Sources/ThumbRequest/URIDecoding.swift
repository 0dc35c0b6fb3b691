/// The decoding nginx applies to the request path before it becomes DOCUMENT_URI: the query is
/// cut off and %XX escapes are turned into bytes. A raw path whose decoding differs from
/// DOCUMENT_URI was normalised further by nginx (dot segments, merged slashes), and storing it
/// would put a thumbnail where another URL finds it.
package enum URIDecoding {
    /// nil for a path with a `.` or `..` segment too: nginx resolves those, so no DOCUMENT_URI it
    /// sends has one, and a request on thumbd's socket that is not nginx's must not walk the
    /// thumbnail's path out of the cache root.
    package static func decodedPath(_ requestURI: String) -> String? {
        decodedPath(requestURI.utf8)
    }

    package static func decodedPath<Bytes: Collection<UInt8>>(_ requestURI: Bytes) -> String? {
        let path = requestURI.prefix { $0 != UInt8(ascii: "?") }
        guard let bytes = PercentDecoding.decode(path), !bytes.contains(0) else { return nil }
        let segments = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard !segments.contains(where: { $0.elementsEqual(".".utf8) || $0.elementsEqual("..".utf8) }) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}
