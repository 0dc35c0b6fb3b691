import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import ThumbRuntime

/// Watches the connections of requests not yet answered, on a thread of its own, for nginx closing
/// its end, as it does when its own client leaves. A miss waits for its job or its deadline; a
/// connection kept open that long for a client that left would let clients that ask and leave
/// take thumbd to its descriptor limit, so such a connection is closed at once, and the job goes
/// on for the others.
///
/// nginx never half-closes a FastCGI connection, so the end of its sending side means it has
/// gone; a client that shut down its sending side after its request would be taken for gone too.
///
/// A connection is known here by a token that is never reused, not by its descriptor: once it is
/// closed, its number is the next connection's, and an event read just before must not end that
/// one. Closing a descriptor takes it out of the epoll set.
final class ClientHangupWatch: Sendable {
    private let poll: EventPoll
    private let watched = Mutex<[UInt64: @Sendable () -> Void]>([:])
    private let lastToken = Atomic<UInt64>(0)

    init() throws(SystemFailure) {
        poll = try EventPoll(for: "watch connections")
        OwnedThread.start(.hangups) { [self] in watchForever() }
    }

    /// Calls `departed` once, on the watching thread, if the peer of `descriptor` closes its end
    /// before `forget`. Whatever answers the request races with it: the two must agree on which
    /// of them closes the connection, and that one closes it after `forget` or `departed`.
    func watch(_ descriptor: Int32, departed: @escaping @Sendable () -> Void) -> UInt64 {
        let token = lastToken.add(1, ordering: .relaxed).newValue
        watched.withLock { $0[token] = departed }
        // The peer's end only: the request's last bytes (nginx's empty STDIN record) may be unread.
        poll.watch(descriptor, for: [.peerClosed, .once], tag: token)
        return token
    }

    func forget(_ token: UInt64) {
        _ = watched.withLock { $0.removeValue(forKey: token) }
    }

    private func watchForever() {
        while true {
            for ready in poll.wait(timeoutMilliseconds: -1) {
                watched.withLock { $0.removeValue(forKey: ready.tag) }?()
            }
        }
    }
}
