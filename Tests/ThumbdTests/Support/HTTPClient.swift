import Foundation
#if canImport(Glibc)
import Glibc
#endif

struct HTTPResponse: Sendable {
    let status: Int
    /// Lowercased names; for a repeated field the last value wins.
    let headers: [String: String]
    let body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
}

struct HTTPClientError: Error, CustomStringConvertible {
    enum Kind: Sendable {
        case connect, timeout, io, malformed, tooLarge
    }

    let kind: Kind
    let message: String

    var description: String { "HTTPClient \(kind): \(message)" }
}

/// A minimal HTTP/1.1 client over a raw socket to 127.0.0.1.
///
/// URLSession and curl normalise request targets (merging `//`, decoding `%2F`, resolving dots); tests of the
/// URL parser need the path to reach the server byte for byte, so it is written to the socket exactly as given.
enum HTTPClient {
    /// Bodies are buffered in memory; the cap keeps a runaway (endless) response from exhausting it.
    static let maxBodyBytes = 64 * 1024 * 1024

    /// Sends one request with `Connection: close` and reads the whole response within `timeout` seconds.
    /// Entries in `headers` replace the default Host and Connection fields when their names match.
    static func get(port: Int, path: String, headers: [String: String] = [:], method: String = "GET",
                    timeout: Double = 30) throws -> HTTPResponse {
        try get(port: port, rawPath: Array(path.utf8), headers: headers, method: method, timeout: timeout)
    }

    /// The same with the request target as bytes, which need not be UTF-8.
    static func get(port: Int, rawPath: [UInt8], headers: [String: String] = [:], method: String = "GET",
                    timeout: Double = 30) throws -> HTTPResponse {
        let deadline = Date(timeIntervalSinceNow: timeout)
        let fd = try openSocket(port: port, timeout: timeout)
        defer { close(fd) }
        try sendAll(fd, requestHead(port: port, path: rawPath, headers: headers, method: method))

        var reader = SocketReader(fd: fd, deadline: deadline)
        guard let head = try reader.read(through: [13, 10, 13, 10], limit: 64 * 1024) else {
            throw HTTPClientError(kind: .malformed, message: "connection closed before a complete response head")
        }
        let (status, fields) = try parseHead(String(decoding: head.dropLast(4), as: UTF8.self))
        let body: [UInt8]
        if method == "HEAD" || status / 100 == 1 || status == 204 || status == 304 {
            body = []
        } else if fields["transfer-encoding"]?.lowercased().contains("chunked") == true {
            body = try readChunked(&reader)
        } else if let declared = fields["content-length"] {
            guard let length = Int(declared), length >= 0 else {
                throw HTTPClientError(kind: .malformed, message: "bad Content-Length '\(declared)'")
            }
            guard length <= maxBodyBytes else {
                throw HTTPClientError(kind: .tooLarge, message: "Content-Length \(length) exceeds the cap")
            }
            body = try reader.read(count: length)
        } else {
            body = try reader.readToEnd(limit: maxBodyBytes)
        }
        return HTTPResponse(status: status, headers: fields, body: body)
    }

    /// Connects and sends the request, and returns the connection without reading: a client that
    /// leaves before its answer closes it.
    static func ask(port: Int, path: String) throws -> Int32 {
        let fd = try openSocket(port: port, timeout: 30)
        do {
            try sendAll(fd, requestHead(port: port, path: Array(path.utf8), headers: [:], method: "GET"))
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// Fires `count` identical requests from `count` threads, released together once all are ready, and returns
    /// the results in thread order; used to provoke races such as concurrent misses for one thumbnail.
    static func getConcurrently(port: Int, path: String, count: Int,
                                headers: [String: String] = [:]) -> [Result<HTTPResponse, Error>] {
        let batch = Batch(count: count)
        for index in 0..<count {
            Thread {
                batch.arriveAndWaitForStart()
                batch.finish(index, Result { try get(port: port, path: path, headers: headers) })
            }.start()
        }
        return batch.startAndCollect()
    }

    static func openSocket(port: Int, timeout: Double) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HTTPClientError(kind: .connect, message: "socket: \(lastError())") }
        setTimeout(fd, SO_SNDTIMEO, seconds: timeout)  // also bounds connect() on Linux

        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian  // 127.0.0.1
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let error = HTTPClientError(kind: .connect, message: "127.0.0.1:\(port): \(lastError())")
            close(fd)
            throw error
        }
        return fd
    }

    private static func requestHead(port: Int, path: [UInt8], headers: [String: String], method: String) -> [UInt8] {
        let overridden = Set(headers.keys.map { $0.lowercased() })
        var fields = ""
        if !overridden.contains("host") { fields += "Host: 127.0.0.1:\(port)\r\n" }
        if !overridden.contains("connection") { fields += "Connection: close\r\n" }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            fields += "\(name): \(value)\r\n"
        }
        return Array("\(method) ".utf8) + path + Array(" HTTP/1.1\r\n\(fields)\r\n".utf8)
    }

    private static func parseHead(_ head: String) throws -> (Int, [String: String]) {
        let lines = head.components(separatedBy: "\r\n")
        let statusLine = lines[0].split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), statusLine[1].count == 3,
              let status = Int(statusLine[1]) else {
            throw HTTPClientError(kind: .malformed, message: "bad status line '\(lines[0])'")
        }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else {
                throw HTTPClientError(kind: .malformed, message: "bad header line '\(line)'")
            }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)
        }
        return (status, fields)
    }

    private static func readChunked(_ reader: inout SocketReader) throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            guard let line = try reader.read(through: [13, 10], limit: 1024) else {
                throw HTTPClientError(kind: .malformed, message: "connection closed inside chunked body")
            }
            let sizeField = String(decoding: line.dropLast(2), as: UTF8.self).prefix { $0 != ";" }
            guard let size = Int(sizeField.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                throw HTTPClientError(kind: .malformed, message: "bad chunk size line '\(sizeField)'")
            }
            if size == 0 { break }
            guard body.count + size <= maxBodyBytes else {
                throw HTTPClientError(kind: .tooLarge, message: "chunked body exceeds \(maxBodyBytes) bytes")
            }
            body += try reader.read(count: size)
            guard try reader.read(count: 2) == [13, 10] else {
                throw HTTPClientError(kind: .malformed, message: "chunk not followed by CRLF")
            }
        }
        // Trailer fields, if any, end with an empty line.
        while let line = try reader.read(through: [13, 10], limit: 64 * 1024), line.count > 2 {}
        return body
    }

    private static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else {
                let timedOut = errno == EAGAIN || errno == EWOULDBLOCK
                throw HTTPClientError(kind: timedOut ? .timeout : .io, message: "send: \(lastError())")
            }
            offset += sent
        }
    }
}

/// Buffered reads that all share one overall deadline: SO_RCVTIMEO is reset to the remaining time before every
/// recv, so a server trickling bytes cannot stretch the request beyond `timeout`.
private struct SocketReader {
    let fd: Int32
    let deadline: Date
    private var buffer: [UInt8] = []

    init(fd: Int32, deadline: Date) {
        self.fd = fd
        self.deadline = deadline
    }

    /// Bytes up to and including `delimiter`; nil if the peer closed first.
    mutating func read(through delimiter: [UInt8], limit: Int) throws -> [UInt8]? {
        var searchFrom = 0
        while true {
            if let range = buffer[searchFrom...].firstRange(of: delimiter) {
                defer { buffer.removeFirst(range.upperBound) }
                return Array(buffer[..<range.upperBound])
            }
            guard buffer.count <= limit else {
                throw HTTPClientError(kind: .malformed, message: "no line end within \(limit) bytes")
            }
            searchFrom = max(0, buffer.count - delimiter.count + 1)
            guard try fill() else { return nil }
        }
    }

    mutating func read(count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else {
                throw HTTPClientError(kind: .io, message: "connection closed after \(buffer.count) of \(count) bytes")
            }
        }
        defer { buffer.removeFirst(count) }
        return Array(buffer[..<count])
    }

    mutating func readToEnd(limit: Int) throws -> [UInt8] {
        while try fill() {
            guard buffer.count <= limit else {
                throw HTTPClientError(kind: .tooLarge, message: "body exceeds \(limit) bytes")
            }
        }
        defer { buffer.removeAll() }
        return buffer
    }

    /// Appends what the next recv delivers; false at end of stream.
    private mutating func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw HTTPClientError(kind: .timeout, message: "response not complete in time") }
            setTimeout(fd, SO_RCVTIMEO, seconds: remaining)
            let count = recv(fd, &chunk, chunk.count, 0)
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
                return true
            }
            if count == 0 { return false }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: throw HTTPClientError(kind: .timeout, message: "response not complete in time")
            default: throw HTTPClientError(kind: .io, message: "recv: \(lastError())")
            }
        }
    }
}

/// Start gate and result slots for `HTTPClient.getConcurrently`.
private final class Batch: @unchecked Sendable {
    private let condition = NSCondition()
    private let count: Int
    private var arrived = 0
    private var started = false
    private var results: [Result<HTTPResponse, Error>?]

    init(count: Int) {
        self.count = count
        results = Array(repeating: nil, count: count)
    }

    func arriveAndWaitForStart() {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        condition.broadcast()
        while !started { condition.wait() }
    }

    func finish(_ index: Int, _ result: Result<HTTPResponse, Error>) {
        condition.lock()
        defer { condition.unlock() }
        results[index] = result
        condition.broadcast()
    }

    /// Opens the gate once every thread waits at it, then blocks until all results are in.
    func startAndCollect() -> [Result<HTTPResponse, Error>] {
        condition.lock()
        defer { condition.unlock() }
        while arrived < count { condition.wait() }
        started = true
        condition.broadcast()
        while results.contains(where: { $0 == nil }) { condition.wait() }
        return results.map { $0! }
    }
}

private func setTimeout(_ fd: Int32, _ option: Int32, seconds: Double) {
    let seconds = max(seconds, 0.001)  // a zero timeval would mean "no timeout"
    let whole = Int(seconds)
    var value = timeval(tv_sec: whole, tv_usec: Int((seconds - Double(whole)) * 1_000_000))
    setsockopt(fd, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
}

private func lastError() -> String {
    String(cString: strerror(errno))
}
