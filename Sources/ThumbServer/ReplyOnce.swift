import Synchronization

/// A reply that goes out once: the job's answer or the deadline's, whichever is first.
final class ReplyOnce: Sendable {
    private let reply: Mutex<(@Sendable (OutgoingResponse) -> Void)?>

    init(_ reply: @escaping @Sendable (OutgoingResponse) -> Void) {
        self.reply = Mutex(reply)
    }

    /// False when the other one was first and this answer went nowhere.
    @discardableResult
    func send(_ response: OutgoingResponse) -> Bool {
        let pending = reply.withLock { reply in
            defer { reply = nil }
            return reply
        }
        pending?(response)
        return pending != nil
    }
}
