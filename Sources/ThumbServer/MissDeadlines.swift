import Dispatch
import Synchronization
import ThumbRuntime

/// The deadlines of misses waiting for their jobs, kept by one thread. Every miss waits the same
/// time, so deadlines fall due in the order they were set: a queue and a thread that sleeps until
/// the oldest replace a dispatch timer per miss. Those timers woke libdispatch's manager thread
/// and reprogrammed its timerfd for each of a storm's 200 waiters.
///
/// The thread waits on a semaphore with dispatch time, holding no lock. The NSCondition with
/// `ContinuousClock` deadlines it replaces never got through its queue in a release build
/// (2,000 deadlines of 50 ms: unfinished after 600 s at -O, done at -Onone; why, not found),
/// and its thread held the lock every miss needs.
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

    private enum Next {
        case sleep
        case wait(until: DispatchTime)
        case expire(@Sendable () -> Void)
    }

    private let seconds: Double
    private let queue = Mutex(Queue())
    /// Signalled when the queue stops being empty.
    private let added = DispatchSemaphore(value: 0)

    init(seconds: Double) {
        self.seconds = seconds
        NamedThread.start("thumbd-deadlines") { [self] in expireForever() }
    }

    /// Calls `expire` on the deadlines' thread once the deadline has passed. It runs whether or
    /// not the miss was answered meanwhile, so it must do nothing in that case, and be quick.
    func add(_ expire: @escaping @Sendable () -> Void) {
        let due = DispatchTime.now() + seconds
        let wasEmpty = queue.withLock { queue in
            defer { queue.entries.append((due, expire)) }
            return queue.isEmpty
        }
        // Any other entry falls due first, and the thread waits for that one.
        if wasEmpty { added.signal() }
    }

    private func expireForever() {
        while true {
            let next = queue.withLock { queue -> Next in
                guard !queue.isEmpty else { return .sleep }
                let oldest = queue.entries[queue.start]
                guard oldest.due <= DispatchTime.now() else { return .wait(until: oldest.due) }
                queue.removeFirst()
                return .expire(oldest.expire)
            }
            switch next {
            case .sleep: added.wait()
            case .wait(let due): _ = added.wait(timeout: due)
            case .expire(let expire): expire()
            }
        }
    }
}
