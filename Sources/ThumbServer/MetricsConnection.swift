#if canImport(Glibc)
import Glibc
#endif
import ThumbRuntime

/// One client of the metrics listener, on the listener's thread only: its request head as it
/// arrives, then its answer as the socket takes it, never blocking (the socket is non-blocking),
/// so that a client who is slow or silent holds up no other. Closed when the value goes.
final class MetricsConnection {
    private let descriptor: FileDescriptor
    /// When it is closed, answered or not.
    let until: ContinuousClock.Instant
    private var head: [UInt8] = []
    private var answer: [UInt8]?
    private var sent = 0
    /// Answered in full, or failed: nothing more to do but close it.
    private(set) var finished = false

    init(_ descriptor: consuming FileDescriptor, until: ContinuousClock.Instant) {
        self.descriptor = descriptor
        self.until = until
    }

    var raw: Int32 { descriptor.raw }

    /// What poll should wait for: the rest of the head, then room for the answer.
    var events: Int16 { Int16(answer == nil ? POLLIN : POLLOUT) }

    /// Reads what has arrived or writes what the socket takes; once the head is whole, `respond`
    /// makes the answer from it.
    func advance(respond: ([UInt8]) -> [UInt8]) {
        if answer == nil { read(respond: respond) }
        if answer != nil { write() }
    }

    private func read(respond: ([UInt8]) -> [UInt8]) {
        var chunk = [UInt8](repeating: 0, count: 1024)
        while head.count < MetricsListener.maxHeadBytes {
            let count = recv(descriptor.raw, &chunk, chunk.count, 0)
            if count < 0 && errno == EINTR { continue }
            if count < 0 && errno == EAGAIN { return }
            guard count > 0 else {
                finished = true
                return
            }
            head += chunk[..<count]
            if head.firstRange(of: Array("\r\n\r\n".utf8)) != nil || head.firstRange(of: Array("\n\n".utf8)) != nil {
                answer = respond(head)
                return
            }
        }
        // More than a head may hold.
        finished = true
    }

    private func write() {
        guard let answer else { return }
        while sent < answer.count {
            let count = answer.withUnsafeBytes {
                send(descriptor.raw, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                finished = errno != EAGAIN
                return
            }
            sent += count
        }
        finished = true
    }
}
