import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// An epoll instance, owned: closed when the value goes. It tells which of the descriptors it
/// watches are ready; each is watched with a tag that comes back with its events (its own
/// number, or a token that outlives the number's reuse). Closing a descriptor unwatches it.
package final class EventPoll: Sendable {
    package struct Events: OptionSet, Sendable {
        package let rawValue: UInt32
        package init(rawValue: UInt32) { self.rawValue = rawValue }

        package static let readable = Events(rawValue: EPOLLIN.rawValue)
        /// The peer closed its sending side.
        package static let peerClosed = Events(rawValue: EPOLLRDHUP.rawValue)
        package static let hungUp = Events(rawValue: EPOLLHUP.rawValue)
        package static let failed = Events(rawValue: EPOLLERR.rawValue)
        /// Said once per change, not for as long as it lasts.
        package static let edgeTriggered = Events(rawValue: EPOLLET.rawValue)
        /// Said once, then the descriptor stays in the set without being watched.
        package static let once = Events(rawValue: EPOLLONESHOT.rawValue)
    }

    package struct Ready: Sendable {
        package let tag: UInt64
        package let events: Events
    }

    private let descriptor: Int32

    /// - Parameter purpose: what the poll is for, to say what cannot be done when it cannot be made.
    package init(for purpose: String) throws(SystemFailure) {
        descriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard descriptor >= 0 else { throw .internalFailure("cannot \(purpose): \(String(cString: strerror(errno)))") }
    }

    deinit { close(descriptor) }

    package func watch(_ fd: Int32, for events: Events, tag: UInt64) {
        control(EPOLL_CTL_ADD, fd, events, tag)
    }

    /// Watches a descriptor already in the set for other events; none pauses it.
    package func change(_ fd: Int32, to events: Events, tag: UInt64) {
        control(EPOLL_CTL_MOD, fd, events, tag)
    }

    package func unwatch(_ fd: Int32) {
        _ = epoll_ctl(descriptor, EPOLL_CTL_DEL, fd, nil)
    }

    /// Up to 64 descriptors' events, waiting for some at most `timeoutMilliseconds` (-1: for ever);
    /// none when the wait ended without any (a timeout, a signal).
    package func wait(timeoutMilliseconds: Int32) -> [Ready] {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        let count = epoll_wait(descriptor, &events, Int32(events.count), timeoutMilliseconds)
        return events.prefix(Int(max(count, 0))).map { Ready(tag: $0.data.u64, events: Events(rawValue: $0.events)) }
    }

    private func control(_ operation: Int32, _ fd: Int32, _ events: Events, _ tag: UInt64) {
        var event = epoll_event()
        event.events = events.rawValue
        event.data.u64 = tag
        _ = epoll_ctl(descriptor, operation, fd, &event)
    }
}
