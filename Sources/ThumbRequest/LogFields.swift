/// What a log line says of a request, short and with nothing secret: its path without the
/// signature, and its source's host.
public enum LogFields {
    /// `/{signature}/rs:fit:300/plain/...` → `/rs:fit:300/plain/...`: the signature is a
    /// credential for that path, and the path says what was asked.
    public static func path(_ uri: String) -> String {
        let afterSlash = uri.utf8.dropFirst()
        guard uri.hasPrefix("/"), let slash = afterSlash.firstIndex(of: UInt8(ascii: "/")) else { return uri }
        return String(uri[slash...])
    }

    /// `https://user@origin.example:8443/cat.jpg` → `origin.example:8443`; `local` for local files.
    public static func host(of url: String) -> String {
        guard let scheme = url.range(of: "://") else { return "" }
        let authority = url[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return String(authority.split(separator: "@", omittingEmptySubsequences: false).last ?? "")
    }
}
