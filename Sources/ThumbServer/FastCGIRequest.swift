import CFastCGI
#if canImport(Glibc)
import Glibc
#endif

/// One request on one connection the gate accepted, and the only owner of libfcgi's
/// FCGX_Request for it: made with the connection, freed once, by the first of `finish`,
/// `abandon` or deinit. Not Sendable: the one who holds it (the server's Exchange) decides who
/// ends it.
final class FastCGIRequest {
    private let request = UnsafeMutablePointer<FCGX_Request>.allocate(capacity: 1)
    private var ended = false

    /// Reads the request's head from `descriptor`; nil when libfcgi refuses it (the connection is
    /// closed then, if libfcgi got that far).
    init?(descriptor: Int32) {
        // No listening socket: libfcgi reads the connection it is given, never accepts one itself.
        FCGX_InitRequest(request, -1, 0)
        request.pointee.ipcFd = descriptor
        // FCGX_Accept_r first finishes the request it is given, which would close the connection.
        request.pointee.keepConnection = 1
        guard FCGX_Accept_r(request) >= 0 else { return nil }
    }

    deinit {
        abandon()
        request.deallocate()
    }

    var descriptor: Int32 { request.pointee.ipcFd }

    func param(_ name: String) -> String? {
        FCGX_GetParam(name, request.pointee.envp).map { String(cString: $0) }
    }

    /// The bytes as sent: a String would turn bytes that are not UTF-8 into U+FFFD.
    func rawParam(_ name: String) -> [UInt8]? {
        FCGX_GetParam(name, request.pointee.envp).map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
    }

    /// Writes `response`, ends the request and closes the connection.
    func finish(with response: OutgoingResponse) {
        guard !ended else { return }
        ended = true
        write(response)
        // Sends what is buffered and the end of the request.
        FCGX_FClose(request.pointee.err)
        FCGX_FClose(request.pointee.out)
        // Closing with bytes unread would reset the connection: read what the client sent after
        // its head (nginx's empty STDIN record), without waiting. libfcgi would wait up to 2 s
        // per read for the client to close its end, holding this thread (detached skips that).
        Self.discardWhatArrived(request.pointee.ipcFd)
        request.pointee.detached = 1
        // One request per connection: one that asked to keep it open would never be closed.
        request.pointee.keepConnection = 0
        FCGX_Finish_r(request)
    }

    /// Closes the connection unanswered (its client has gone) and frees what libfcgi holds.
    func abandon() {
        guard !ended else { return }
        ended = true
        request.pointee.detached = 1
        FCGX_Free(request, 1)
    }

    /// A client that has gone away makes the writes fail with EPIPE; nothing else to do then.
    /// The status goes without a reason phrase: nginx adds its own for the code.
    private func write(_ response: OutgoingResponse) {
        let stream = request.pointee.out
        var head = "Status: \(response.status)\r\n"
        for header in response.headers {
            head += "\(header.name): \(header.value)\r\n"
        }
        head += "Content-Length: \(response.body.count)\r\n\r\n"
        var headBytes = Array(head.utf8)
        headBytes.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { _ = FCGX_PutStr($0.baseAddress, Int32($0.count), stream) }
        }
        response.body.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            _ = FCGX_PutStr(base.assumingMemoryBound(to: CChar.self), Int32(buffer.count), stream)
        }
    }

    private static func discardWhatArrived(_ descriptor: Int32) {
        // On the stack: every answer passes here.
        withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 1) { buffer in
            var reads = 0
            while reads < 16, recv(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT)) > 0 { reads += 1 }
        }
    }
}
