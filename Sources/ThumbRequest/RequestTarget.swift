/// What a client asks for, written as a whole URL (`https://thumbs.example.com/sig/...`) or as
/// its path (`/sig/...`).
package enum RequestTarget {
    /// The path, as nginx would see it.
    package static func path(of url: String) -> String {
        guard let scheme = url.range(of: "://"), !url.hasPrefix("/") else { return url }
        let afterHost = url[scheme.upperBound...].drop { $0 != "/" }
        return afterHost.isEmpty ? "/" : String(afterHost)
    }
}
