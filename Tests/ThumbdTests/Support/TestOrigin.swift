import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A scriptable HTTP/1.1 origin on 127.0.0.1 for integration tests.
///
/// It is deliberately built on blocking sockets and one thread per connection rather than on the code under test,
/// so that it can misbehave on purpose (lie about lengths, stream forever, hang, drop connections) and count exactly
/// what reached it. GET and HEAD only; request bodies are not expected.
final class TestOrigin: @unchecked Sendable {
    /// What the origin answers for one path.
    struct Response: Sendable {
        enum Kind: Sendable {
            /// A well-formed response with an exact Content-Length; the connection may be kept alive.
            case normal
            /// Sends `body` but announces this Content-Length instead, then closes the connection.
            case declaredLength(Int)
            /// Sends headers without a Content-Length, then repeats `body` (64 KiB of zeros when empty) until the
            /// client disconnects or the origin stops.
            case endless
            /// Adds a Location header; pair it with a 3xx status (the `redirect(_:)` helper uses 302).
            case redirect(to: String)
            /// Closes the socket without answering.
            case dropConnection
            /// Announces the body's exact length, then sends it one byte a second.
            case trickle
            /// Announces the body's exact length, sends half of it, then resets the connection (RST).
            case resetMidBody
        }

        var status: Int
        /// Extra header fields, in order. Content-Length and Connection are added by the origin.
        var headers: [(String, String)]
        var body: [UInt8]
        /// Seconds to wait before answering (after the request was counted and any pause was released).
        var delay: Double
        var kind: Kind

        init(status: Int = 200, headers: [(String, String)] = [], body: [UInt8] = [], delay: Double = 0,
             kind: Kind = .normal) {
            self.status = status
            self.headers = headers
            self.body = body
            self.delay = delay
            self.kind = kind
        }

        static func image(_ bytes: [UInt8], contentType: String = "image/jpeg", delay: Double = 0) -> Response {
            Response(headers: [("Content-Type", contentType)], body: bytes, delay: delay)
        }

        static func status(_ code: Int, body: String = "") -> Response {
            Response(status: code, headers: [("Content-Type", "text/plain")], body: Array(body.utf8))
        }

        static func redirect(_ location: String) -> Response {
            Response(status: 302, kind: .redirect(to: location))
        }
    }

    let port: Int
    private let listenFD: Int32
    private let state = OriginState()
    private let acceptFinished = DispatchSemaphore(value: 0)

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestOriginError("socket", errno) }
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))

        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0  // the kernel picks a free port
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian  // 127.0.0.1
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 128) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            let error = TestOriginError("bind/listen", errno)
            close(fd)
            throw error
        }
        listenFD = fd
        port = Int(UInt16(bigEndian: address.sin_port))

        let state = self.state, finished = acceptFinished
        Thread {
            Self.acceptLoop(fd, state: state)
            finished.signal()
        }.start()
    }

    deinit {
        stop()
    }

    func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)\(path)"
    }

    /// Answers requests for exactly `path` (query string excluded) with `response`; unknown paths get a 404.
    func serve(_ path: String, _ response: Response) {
        state.locked { state.routes[path] = response }
    }

    func requestCount(_ path: String) -> Int {
        state.locked { state.requestCounts[path, default: 0] }
    }

    var totalRequests: Int {
        state.locked { state.totalRequests }
    }

    /// Accepted TCP connections; tells keep-alive reuse apart from new connections.
    var connectionCount: Int {
        state.locked { state.connectionCount }
    }

    /// Header fields (lowercased names) of the most recent request for `path`.
    func lastHeaders(_ path: String) -> [String: String] {
        state.locked { state.lastHeaders[path] ?? [:] }
    }

    /// Waits until at least `count` requests for `path` arrived; false on timeout.
    func waitForRequests(_ path: String, count: Int, timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        return state.locked {
            while state.requestCounts[path, default: 0] < count {
                guard state.condition.wait(until: deadline) else {
                    return state.requestCounts[path, default: 0] >= count
                }
            }
            return true
        }
    }

    /// Holds requests for `path` after they are counted, until `release(_:)` or `stop()`; lets tests observe
    /// in-flight work (for example request coalescing) deterministically.
    func pause(_ path: String) {
        state.locked { _ = state.paused.insert(path) }
    }

    func release(_ path: String) {
        state.locked {
            state.paused.remove(path)
            state.condition.broadcast()
        }
    }

    /// Closes the listener and every open connection, releases paused requests and waits for the threads to end.
    /// Safe to call more than once.
    func stop() {
        let wasRunning = state.locked {
            guard !state.stopped else { return false }
            state.stopped = true
            state.paused.removeAll()
            // Wakes threads blocked in recv/send; each thread closes its own socket.
            for fd in state.openSockets { shutdown(fd, Int32(SHUT_RDWR)) }
            state.condition.broadcast()
            return true
        }
        guard wasRunning else { return }
        shutdown(listenFD, Int32(SHUT_RDWR))  // on Linux this makes the blocked accept() return
        acceptFinished.wait()
        close(listenFD)
        let deadline = Date(timeIntervalSinceNow: 5)
        state.locked {
            while !state.openSockets.isEmpty && state.condition.wait(until: deadline) {}
        }
    }

    // MARK: - Serving (runs on the origin's threads, which only capture `OriginState`)

    private struct Request {
        let method: String
        let path: String
        let headers: [String: String]
        let keepAlive: Bool
    }

    private static let maxHeaderBytes = 64 * 1024

    private static func acceptLoop(_ listenFD: Int32, state: OriginState) {
        while true {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 {
                let error = errno
                if state.locked({ state.stopped }) { return }
                if error != EINTR && error != ECONNABORTED { usleep(1000) }  // e.g. EMFILE: do not spin
                continue
            }
            let admitted = state.locked {
                guard !state.stopped else { return false }
                state.connectionCount += 1
                state.openSockets.insert(fd)
                return true
            }
            guard admitted else {
                close(fd)
                return
            }
            Thread { serveConnection(fd, state: state) }.start()
        }
    }

    private static func serveConnection(_ fd: Int32, state: OriginState) {
        defer {
            // Closed under the lock so that stop() never shuts down a descriptor number that was reused.
            state.locked {
                state.openSockets.remove(fd)
                close(fd)
                state.condition.broadcast()
            }
        }
        var buffer: [UInt8] = []
        while let request = readRequest(fd, &buffer) {
            guard let response = admit(request, state: state) else { return }
            guard answer(fd, request, response, state: state) else { return }
        }
    }

    /// Reads one request head; nil when the connection ended or the request was unusable (after answering it).
    private static func readRequest(_ fd: Int32, _ buffer: inout [UInt8]) -> Request? {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            if let end = headerEnd(buffer) {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)  // keep pipelined bytes for the next request
                guard let request = parseRequest(head) else {
                    sendAll(fd, plainResponse(400, "bad request\n", keepAlive: false))
                    return nil
                }
                return request
            }
            if buffer.count > maxHeaderBytes {
                sendAll(fd, plainResponse(431, "request header too large\n", keepAlive: false))
                return nil
            }
            let count = recv(fd, &chunk, chunk.count, 0)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (0...(bytes.count - 4)).first {
            bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10
        }
    }

    private static func parseRequest(_ head: String) -> Request? {
        let lines = head.components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let target = String(parts[1])
        let connection = headers["connection"]?.lowercased() ?? ""
        let keepAlive = parts[2] == "HTTP/1.1" ? connection != "close" : connection == "keep-alive"
        return Request(method: String(parts[0]), path: String(target.prefix { $0 != "?" }), headers: headers,
                       keepAlive: keepAlive)
    }

    /// Counts the request, holds it while its path is paused and for the response delay.
    /// Returns nil when the origin stopped meanwhile.
    private static func admit(_ request: Request, state: OriginState) -> Response? {
        state.locked {
            state.requestCounts[request.path, default: 0] += 1
            state.totalRequests += 1
            state.lastHeaders[request.path] = request.headers
            state.condition.broadcast()
            while state.paused.contains(request.path) && !state.stopped {
                state.condition.wait()
            }
            let response = state.routes[request.path]
                ?? .status(404, body: "no route for \(request.path)\n")
            let deadline = Date(timeIntervalSinceNow: response.delay)
            while !state.stopped && state.condition.wait(until: deadline) {}
            return state.stopped ? nil : response
        }
    }

    /// Sends `response`; returns whether the connection stays open for another request.
    private static func answer(_ fd: Int32, _ request: Request, _ response: Response, state: OriginState) -> Bool {
        var head = "HTTP/1.1 \(response.status) \(reasonPhrase(response.status))\r\n"
        for (name, value) in response.headers {
            head += "\(name): \(value)\r\n"
        }
        let keepAlive: Bool
        switch response.kind {
        case .dropConnection:
            return false
        case .normal:
            head += "Content-Length: \(response.body.count)\r\n"
            keepAlive = request.keepAlive
        case .redirect(let location):
            head += "Location: \(location)\r\nContent-Length: \(response.body.count)\r\n"
            keepAlive = request.keepAlive
        case .declaredLength(let length):
            head += "Content-Length: \(length)\r\n"
            keepAlive = false
        case .endless:
            keepAlive = false
        case .trickle, .resetMidBody:
            head += "Content-Length: \(response.body.count)\r\n"
            keepAlive = false
        }
        head += "Connection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n"
        let sendsBody = request.method != "HEAD"
        switch response.kind {
        case .trickle:
            guard sendAll(fd, Array(head.utf8)) else { return false }
            for byte in response.body {
                guard sendAll(fd, [byte]) else { break }
                let stopped = state.locked {
                    let deadline = Date(timeIntervalSinceNow: 1)
                    while !state.stopped && state.condition.wait(until: deadline) {}
                    return state.stopped
                }
                if stopped { break }
            }
            return false
        case .resetMidBody:
            _ = sendAll(fd, Array(head.utf8) + response.body.prefix(response.body.count / 2))
            // A zero linger time makes close send RST instead of FIN.
            var reset = linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
            return false
        default:
            break
        }
        guard sendAll(fd, Array(head.utf8) + (sendsBody ? response.body : [])) else { return false }

        if case .endless = response.kind, sendsBody {
            let chunk = response.body.isEmpty ? [UInt8](repeating: 0, count: 64 * 1024) : response.body
            // A failed send means the client went away; stop() shuts the socket down, which also fails it.
            while sendAll(fd, chunk) {}
        }
        return keepAlive
    }

    private static func plainResponse(_ status: Int, _ body: String, keepAlive: Bool) -> [UInt8] {
        let connection = keepAlive ? "keep-alive" : "close"
        return Array(("HTTP/1.1 \(status) \(reasonPhrase(status))\r\nContent-Type: text/plain\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: \(connection)\r\n\r\n\(body)").utf8)
    }

    private static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status \(status)"
        }
    }

    /// Writes everything or reports failure; MSG_NOSIGNAL turns a vanished peer into EPIPE instead of SIGPIPE.
    @discardableResult
    private static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}

/// Everything the test thread and the origin's threads share; every field is guarded by `condition`, which is
/// also signalled whenever something a waiter may care about changes.
private final class OriginState: @unchecked Sendable {
    let condition = NSCondition()
    var routes: [String: TestOrigin.Response] = [:]
    var requestCounts: [String: Int] = [:]
    var lastHeaders: [String: [String: String]] = [:]
    var paused: Set<String> = []
    var totalRequests = 0
    var connectionCount = 0
    var openSockets: Set<Int32> = []
    var stopped = false

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }
}

struct TestOriginError: Error, CustomStringConvertible {
    let description: String

    init(_ operation: String, _ code: Int32) {
        description = "TestOrigin: \(operation) failed: \(String(cString: strerror(code)))"
    }
}
