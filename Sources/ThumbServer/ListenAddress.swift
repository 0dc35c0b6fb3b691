/// Where thumbd takes FastCGI connections from nginx.
public enum ListenAddress: Sendable, Equatable, CustomStringConvertible {
    case unix(path: String)
    case tcp(host: String, port: Int)

    /// `unix:/path`, a path starting with `/`, or `host:port`.
    public init?(_ text: String) {
        if text.hasPrefix("unix:") {
            self = .unix(path: String(text.dropFirst(5)))
        } else if text.hasPrefix("/") {
            self = .unix(path: text)
        } else if let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
                  (1...65_535).contains(port) {
            self = .tcp(host: String(text[..<colon]), port: port)
        } else {
            return nil
        }
    }

    /// The form FCGX_OpenSocket takes.
    var libfcgiName: String {
        switch self {
        case .unix(let path): path
        case .tcp(let host, let port): "\(host):\(port)"
        }
    }

    public var description: String {
        switch self {
        case .unix(let path): "unix:\(path)"
        case .tcp(let host, let port): "\(host):\(port)"
        }
    }
}
