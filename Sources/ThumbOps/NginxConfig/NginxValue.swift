import ArgumentParser
import ThumbRequest
import ThumbServer

/// The values `thumbd nginx-config` writes into directives of a config that nginx's master reads
/// as root. Each is checked against the few characters it needs, so none can end a directive
/// (`;`), open or close a block, quote, space, start a comment or name a variable (`$`): whatever
/// is given stays one token of the directive it was given for.
enum NginxValue {
    /// What a file path may hold: letters, digits and `/._-+@,=~`.
    private static let pathCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+@,=~")
    /// A glob's wildcards besides.
    private static let globCharacters = pathCharacters.union("*?[]")
    /// A host name, an IPv4 address or `*`.
    private static let hostCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-*")
    /// A server name: a host name, `_`, or a wildcard at either end (`*.example.com`).
    private static let serverNameCharacters = hostCharacters.union("_")

    /// An absolute path of a file or directory.
    static func path(_ text: String) throws -> String {
        try absolute(text, allowed: pathCharacters, what: "path")
    }

    /// An absolute glob (an `include`'s).
    static func glob(_ text: String) throws -> String {
        try absolute(text, allowed: globCharacters, what: "glob")
    }

    /// A format thumbd may enforce over the URL's: `avif`, `jxl` or `webp`.
    static func enforcedFormat(_ text: String) throws -> ImageFormat {
        try negotiable(text, "cannot be enforced")
    }

    /// A format thumbd may negotiate a URL without one to: `avif`, `jxl` or `webp`.
    static func negotiatedFormat(_ text: String) throws -> ImageFormat {
        try negotiable(text, "cannot be negotiated")
    }

    /// thumbd's FORMAT_NEGOTIATION_ORDER: `avif`, `jxl` and `webp`, comma-separated, each once.
    static func negotiationOrder(_ text: String) throws -> [ImageFormat] {
        guard let order = FormatNegotiation.order(parsing: text) else {
            throw ValidationError("'\(text)' is no order: avif, jxl and webp, comma-separated, each once")
        }
        return order
    }

    private static func negotiable(_ text: String, _ refusal: String) throws -> ImageFormat {
        guard let format = ImageFormat(rawValue: text), FormatNegotiation.defaultOrder.contains(format) else {
            throw ValidationError("'\(text)' \(refusal): avif, jxl or webp only")
        }
        return format
    }

    static func serverName(_ text: String) throws -> String {
        guard !text.isEmpty, text.allSatisfy(serverNameCharacters.contains) else {
            throw ValidationError("'\(text)' is no server name: letters, digits, '.', '-', '_' and '*' only")
        }
        return text
    }

    /// A log: `off`, an absolute path or `syslog:` and its parameters.
    static func log(_ text: String) throws -> NginxLog {
        if text == "off" { return .off }
        if text.hasPrefix("syslog:") {
            let parameters = text.dropFirst("syslog:".count)
            guard !parameters.isEmpty, parameters.allSatisfy(pathCharacters.union(":").contains) else {
                throw ValidationError("'\(text)' is no syslog log: syslog: then letters, digits and '/._-+@,=~:' only")
            }
            return .syslog(text)
        }
        return .file(try path(text))
    }

    /// nginx's `listen`: a port, or an address and a port.
    static func listen(_ text: String) throws -> NginxAddress {
        if let port = Int(text) { return NginxAddress(host: nil, port: try self.port(port, in: text)) }
        return try address(text)
    }

    /// `host:port`, `[IPv6]:port` included.
    static func address(_ text: String) throws -> NginxAddress {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else {
            throw ValidationError("'\(text)' is no address: host:port")
        }
        return NginxAddress(host: try host(String(text[..<colon]), in: text), port: try self.port(port, in: text))
    }

    /// thumbd's `--listen` spelling (`unix:/path`, `/path` or `host:port`), checked as nginx will
    /// read it.
    static func socket(_ text: String) throws -> ListenAddress {
        guard let address = ListenAddress(text) else {
            throw ValidationError("'\(text)' is no socket: unix:/path or host:port (1 to 65535)")
        }
        switch address {
        case .unix(let socketPath): _ = try path(socketPath)
        case .tcp(let host, _): _ = try self.host(host, in: text)
        }
        return address
    }

    /// `thumbd nginx-config` and `arguments` as a config's comment shows them, an option a line;
    /// globs quoted for the shell (values are checked: nothing else needs quoting).
    static func commandLine(_ arguments: [[String]]) -> String {
        let quoted = arguments.map { group in
            group.map { $0.contains(where: "*?[]".contains) ? "'\($0)'" : $0 }.joined(separator: " ")
        }
        return "thumbd nginx-config " + quoted.joined(separator: " \\\n#       ")
    }

    private static func absolute(_ text: String, allowed: Set<Character>, what: String) throws -> String {
        guard text.hasPrefix("/") else { throw ValidationError("'\(text)' is not an absolute \(what)") }
        guard text.allSatisfy(allowed.contains) else {
            let characters = String(allowed.subtracting(Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")).sorted())
            throw ValidationError("'\(text)' holds a character nginx would read as syntax: letters, digits and "
                                  + "'\(characters)' only")
        }
        return text
    }

    private static func host(_ host: String, in text: String) throws -> String {
        let isIPv6 = host.hasPrefix("[") && host.hasSuffix("]") && host.count > 2
            && host.dropFirst().dropLast().allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
        guard isIPv6 || (!host.isEmpty && host.allSatisfy(hostCharacters.contains)) else {
            throw ValidationError("'\(text)' has no valid host: a name, an IPv4 address or [an IPv6 address]")
        }
        return host
    }

    private static func port(_ port: Int, in text: String) throws -> Int {
        guard (1...65_535).contains(port) else { throw ValidationError("'\(text)' has a port out of 1 to 65535") }
        return port
    }
}

/// Where nginx listens or a front sends to: `80`, `127.0.0.1:8080`, `[::1]:80`.
struct NginxAddress: Equatable, CustomStringConvertible {
    /// nil: every address (`listen 80`).
    let host: String?
    let port: Int

    var description: String { host.map { "\($0):\(port)" } ?? "\(port)" }
}

/// A log nginx writes: nowhere, a file, or syslog.
enum NginxLog: Equatable, CustomStringConvertible {
    case off
    case file(String)
    case syslog(String)

    var description: String {
        switch self {
        case .off: "off"
        case .file(let path): path
        case .syslog(let target): target
        }
    }

    /// The `access_log` directive in `format`, nil for off; a file's buffered as `buffer` says
    /// (nginx cannot buffer syslog).
    func directive(format: String? = nil, buffer: String? = nil) -> String? {
        let words: [String?] = switch self {
        case .off: []
        case .file(let path): ["access_log", path, format, buffer]
        case .syslog(let target): ["access_log", target, format]
        }
        return words.isEmpty ? nil : words.compactMap { $0 }.joined(separator: " ") + ";"
    }
}
