import Dispatch
import ThumbRuntime

/// The deadlines of misses waiting for their jobs, kept by one thread. Every miss waits the same
/// time, so deadlines fall due in the order they were set: a queue and one thread that sleeps
/// until the oldest, rather than a dispatch timer per miss, which would wake libdispatch's manager
/// thread and reprogram its timerfd for every waiter of a storm.
///
/// The thread sleeps holding no lock (the queue's is the one every miss takes), until a
/// `DispatchTime`: with `ContinuousClock` deadlines the queue stalled in release builds.
final class MissDeadlines: Sendable {
    private struct Queue {
        /// Oldest first from `start`; what is before `start` has fallen due.
        var entries: [(due: DispatchTime, expire: @Sendable () -> Void)] = []
        var start = 0

        var isEmpty: Bool { start == entries.count }

        mutating func removeFirst() {
            start += 1
            if start >= 1024 && start * 2 >= entries.count {
                entries.removeFirst(start)
                start = 0
            }
        }
    }

    private let seconds: Double
    private let queue = Monitor(Queue())

    init(seconds: Double) {
        self.seconds = seconds
        OwnedThread.start(.deadlines) { [self] in expireForever() }
    }

    /// Calls `expire` on the deadlines' thread once the deadline has passed. It runs whether or
    /// not the miss was answered meanwhile, so it must do nothing in that case, and be quick.
    func add(_ expire: @escaping @Sendable () -> Void) {
        let due = DispatchTime.now() + seconds
        let wasEmpty = queue.withLock { queue in
            defer { queue.entries.append((due, expire)) }
            return queue.isEmpty
        }
        // Any other entry falls due first, and the thread sleeps until that one.
        if wasEmpty { queue.wake(.one) }
    }

    private func expireForever() {
        while true {
            let expire = queue.wait { queue -> Monitor<Queue>.Step<@Sendable () -> Void> in
                guard !queue.isEmpty else { return .sleep() }
                let oldest = queue.entries[queue.start]
                guard oldest.due <= DispatchTime.now() else { return .sleep(until: oldest.due) }
                queue.removeFirst()
                return .done(oldest.expire)
            }
            expire()
        }
    }
}
