import ThumbRequest

/// How thumbd hands a stored thumbnail to nginx: `X-Accel-Redirect` to nginx's internal
/// location over the cache root (NginxSite), so nginx serves the first answer from the
/// file exactly as it serves every later hit: ETag, Last-Modified, Range, HEAD, sendfile.
enum StoredFileRedirect {
    /// NginxSite's internal location, an alias of the cache root.
    static let prefix = "/_thumbd/stored"

    /// The redirect's URI for a file at `relative` under the cache root. nginx splits the query
    /// off at the first `?` and then undoes percent-escapes, so every byte that could be read
    /// as anything but itself is escaped. The query tells the internal location what nginx adds:
    /// `Vary` and whether thumbd made the file for this request.
    static func uri(for relative: String, made: Bool, varies: Bool) -> String {
        var escaped: [UInt8] = []
        escaped.reserveCapacity(relative.utf8.count + 16)
        for byte in relative.utf8 {
            if isKeptAsIs(byte) {
                escaped.append(byte)
            } else {
                escaped.append(UInt8(ascii: "%"))
                escaped += Hex.string(CollectionOfOne(byte)).utf8
            }
        }
        var uri = prefix + String(decoding: escaped, as: UTF8.self)
        uri += "?cache=" + (made ? ServerTiming.Mark.miss : .hit).rawValue
        if varies { uri += "&vary=Accept" }
        return uri
    }

    /// RFC 3986's unreserved characters and the path's own separator.
    private static func isKeptAsIs(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
            true
        default:
            false
        }
    }
}
