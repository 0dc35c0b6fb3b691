import CLinux
import Logging
#if canImport(Glibc)
import Glibc
#endif
import ThumbRuntime

/// imgproxy's PROMETHEUS_BIND: an HTTP listener of its own that answers `GET /metrics` with the
/// scrape, so that a Prometheus on another host needs no `allow` line in nginx's site. Every other
/// request gets 404. One thread takes one connection at a time, which a scrape every few seconds
/// never notices; each connection has `deadline` in all to send its request head and take the
/// answer, and is closed after it, so a slow or hostile client holds the thread that long at most
/// and never holds a worker, a descriptor or memory beyond a head's 8 KiB.
public final class MetricsListener: Sendable {
    public static let path = "/metrics"
    static let maxHeadBytes = 8192
    private let socket: Int32
    private let deadline: Duration
    private let scrape: @Sendable () -> String
    private let logger: Logger

    /// Listens on `address` (host:port; an empty host is every address) now, so that a port in
    /// use is reported at start.
    public init(_ address: ListenAddress, deadline: Duration = .seconds(5), logger: Logger,
                scrape: @escaping @Sendable () -> String) throws(ThumbError) {
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
        NamedThread.start("thumbd-metrics") { [self] in
            let failures = FailureStreak()
            while true {
                let raw = clinux_accept_cloexec(socket)
                guard raw >= 0 else {
                    let code = errno
                    guard code != EINTR && code != ECONNABORTED else { continue }
                    // Out of descriptors, say: the backlog waits until some are closed.
                    if failures.begin() {
                        logger.warning("metrics listener cannot accept; retrying", metadata: ["error": "\(String(cString: strerror(code)))"])
                    }
                    usleep(100_000)
                    continue
                }
                if failures.end() { logger.notice("metrics listener accepting again") }
                let connection = FileDescriptor(owning: raw)
                answer(connection)
            }
        }
    }

    private func answer(_ connection: borrowing FileDescriptor) {
        let until = ContinuousClock.now + deadline
        guard fcntl(connection.raw, F_SETFL, fcntl(connection.raw, F_GETFL) | O_NONBLOCK) == 0,
              let request = readHead(connection, until: until) else { return }
        let response: (status: String, body: String)
        switch Self.requestLine(request) {
        case ("GET", Self.path): response = ("200 OK", scrape())
        default: response = ("404 Not Found", "not found; metrics are at GET \(Self.path)\n")
        }
        let body = Array(response.body.utf8)
        let head = "HTTP/1.1 \(response.status)\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
            + "Content-Length: \(body.count)\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
        write(Array(head.utf8) + body, to: connection, until: until)
    }

    /// The method and the path (without its query) of the request line; empty when there is none.
    static func requestLine(_ head: [UInt8]) -> (method: String, path: String) {
        let line = head.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        let parts = line.split(separator: UInt8(ascii: " "))
        guard parts.count == 3, parts[2].starts(with: Array("HTTP/1.".utf8)) else { return ("", "") }
        let target = parts[1].prefix { $0 != UInt8(ascii: "?") }
        return (String(decoding: parts[0], as: UTF8.self), String(decoding: target, as: UTF8.self))
    }

    /// The request head, up to its blank line; nil when the client closes, sends more than a head
    /// may hold, or runs out of time first.
    private func readHead(_ connection: borrowing FileDescriptor, until: ContinuousClock.Instant) -> [UInt8]? {
        var head: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while head.count < Self.maxHeadBytes {
            guard wait(connection, for: Int16(POLLIN), until: until) else { return nil }
            let count = recv(connection.raw, &chunk, chunk.count, 0)
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count > 0 else { return nil }
            head += chunk[..<count]
            if head.count >= 4, head.firstRange(of: Array("\r\n\r\n".utf8)) != nil || head.firstRange(of: Array("\n\n".utf8)) != nil {
                return head
            }
        }
        return nil
    }

    private func write(_ bytes: [UInt8], to connection: borrowing FileDescriptor, until: ContinuousClock.Instant) {
        var offset = 0
        while offset < bytes.count {
            guard wait(connection, for: Int16(POLLOUT), until: until) else { return }
            let sent = bytes.withUnsafeBytes { send(connection.raw, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard sent > 0 else { return }
            offset += sent
        }
    }

    /// False when the time is up or the connection failed.
    private func wait(_ connection: borrowing FileDescriptor, for events: Int16, until: ContinuousClock.Instant) -> Bool {
        while true {
            let left = ContinuousClock.now.duration(to: until)
            guard left > .zero else { return false }
            var entry = pollfd(fd: connection.raw, events: events, revents: 0)
            let ready = poll(&entry, 1, left.pollTimeout)
            if ready < 0 && errno == EINTR { continue }
            return ready > 0 && entry.revents & events != 0
        }
    }

    /// A listening TCP socket on the first address `host` resolves to (every address when empty).
    private static func listen(host: String, port: Int) throws(ThumbError) -> Int32 {
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
        let descriptor = Glibc.socket(first.pointee.ai_family, first.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), 0)
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
