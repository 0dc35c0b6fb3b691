import Logging
#if canImport(Glibc)
import Glibc
#endif
import ThumbRuntime

/// imgproxy's PROMETHEUS_BIND: an HTTP listener of its own that answers `GET /metrics` with the
/// scrape, so that a Prometheus on another host needs no `allow` line in nginx's site. Every other
/// request gets 404. One thread serves every connection at once (poll, non-blocking sockets), so a
/// client that connects and says nothing delays no scrape; each connection has `deadline` in all to
/// send its request head and take the answer, and is closed after it. At most `maxConnections` are
/// open: a new one closes the one open longest, so a flood of silent clients holds a descriptor
/// and a head's 8 KiB each, for `deadline` at most, and never a worker.
public final class MetricsListener: Sendable {
    public static let path = "/metrics"
    static let maxHeadBytes = 8192
    static let maxConnections = 32
    private let socket: Int32
    private let deadline: Duration
    private let scrape: @Sendable () -> String
    private let logger: Logger

    /// Listens on `address` (host:port; an empty host is every address) now, so that a port in
    /// use is reported at start.
    public init(_ address: ListenAddress, deadline: Duration = .seconds(3), logger: Logger,
                scrape: @escaping @Sendable () -> String) throws(SystemFailure) {
        guard case .tcp(let host, let port) = address else {
            throw .internalFailure("PROMETHEUS_BIND takes host:port, not \(address)")
        }
        socket = try Self.listen(host: host, port: port)
        self.deadline = deadline
        self.scrape = scrape
        self.logger = logger
    }

    /// Answers on a thread of its own for as long as the process runs.
    public func start() {
        OwnedThread.start(.metrics) { [self] in
            let failures = FailureStreak()
            // Oldest first.
            var connections: [MetricsConnection] = []
            while true {
                connections.removeAll { $0.finished || $0.until <= .now }
                var entries = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0)]
                    + connections.map { pollfd(fd: $0.raw, events: $0.events, revents: 0) }
                let timeout = connections.map(\.until).min().map { ContinuousClock.now.duration(to: $0).pollTimeout } ?? -1
                guard poll(&entries, nfds_t(entries.count), timeout) > 0 else { continue }
                for (connection, entry) in zip(connections, entries.dropFirst()) where entry.revents != 0 {
                    connection.advance { answer(to: $0) }
                }
                guard entries[0].revents != 0 else { continue }
                let raw = ClosingOnExec.accept(socket)
                guard raw >= 0 else {
                    let code = errno
                    guard code != EINTR && code != ECONNABORTED && code != EAGAIN else { continue }
                    // Out of descriptors, say: the backlog waits until some are closed.
                    if failures.begin() {
                        logger.warning("metrics listener cannot accept; retrying", metadata: ["error": "\(String(cString: strerror(code)))"])
                    }
                    usleep(100_000)
                    continue
                }
                if failures.end() { logger.notice("metrics listener accepting again") }
                let connection = FileDescriptor(owning: raw)
                guard fcntl(raw, F_SETFL, fcntl(raw, F_GETFL) | O_NONBLOCK) == 0 else { continue }
                if connections.count >= Self.maxConnections { connections.removeFirst() }
                connections.append(MetricsConnection(connection, until: .now + deadline))
            }
        }
    }

    /// The whole answer to a request head.
    private func answer(to request: [UInt8]) -> [UInt8] {
        let response: (status: String, body: String)
        switch Self.requestLine(request) {
        case ("GET", Self.path): response = ("200 OK", scrape())
        default: response = ("404 Not Found", "not found; metrics are at GET \(Self.path)\n")
        }
        let body = Array(response.body.utf8)
        let head = "HTTP/1.1 \(response.status)\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
            + "Content-Length: \(body.count)\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + body
    }

    /// The method and the path (without its query) of the request line; empty when there is none.
    static func requestLine(_ head: [UInt8]) -> (method: String, path: String) {
        let line = head.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        let parts = line.split(separator: UInt8(ascii: " "))
        guard parts.count == 3, parts[2].starts(with: Array("HTTP/1.".utf8)) else { return ("", "") }
        let target = parts[1].prefix { $0 != UInt8(ascii: "?") }
        return (String(decoding: parts[0], as: UTF8.self), String(decoding: target, as: UTF8.self))
    }

    /// A listening TCP socket on the first address `host` resolves to (every address when empty).
    private static func listen(host: String, port: Int) throws(SystemFailure) -> Int32 {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        // [::1] is how an IPv6 address is written beside a port; getaddrinfo takes it bare.
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let status = getaddrinfo(name.isEmpty ? nil : name, "\(port)", &hints, &found)
        guard status == 0, let first = found else {
            throw .internalFailure("PROMETHEUS_BIND \(host):\(port): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(found) }
        let descriptor = Glibc.socket(first.pointee.ai_family, first.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue)
                                      | Int32(SOCK_NONBLOCK.rawValue), 0)
        var on: Int32 = 1
        guard descriptor >= 0,
              setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size)) == 0,
              bind(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0,
              Glibc.listen(descriptor, 64) == 0 else {
            let why = String(cString: strerror(errno))
            if descriptor >= 0 { close(descriptor) }
            throw .internalFailure("cannot listen on PROMETHEUS_BIND \(host):\(port): \(why)")
        }
        return descriptor
    }
}
