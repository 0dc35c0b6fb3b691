import Foundation

/// The deadlines of misses waiting for their jobs, kept by one thread. Every miss waits the same
/// time, so deadlines fall due in the order they were set: a queue and a thread that sleeps until
/// the oldest replace a dispatch timer per miss. Those timers woke libdispatch's manager thread
/// and reprogrammed its timerfd for each of a storm's 200 waiters.
final class MissDeadlines: @unchecked Sendable {
    private let seconds: Double
    private let condition = NSCondition()
    /// Oldest first from `start`; what is before `start` has fallen due.
    private var pending: [(due: ContinuousClock.Instant, expire: @Sendable () -> Void)] = []
    private var start = 0

    init(seconds: Double) {
        self.seconds = seconds
        NamedThread.start("thumbd-deadlines") { [self] in expireForever() }
    }

    /// Calls `expire` on the deadlines' thread once the deadline has passed. It runs whether or
    /// not the miss was answered meanwhile, so it must do nothing in that case, and be quick.
    func add(_ expire: @escaping @Sendable () -> Void) {
        condition.lock()
        pending.append((.now + .seconds(seconds), expire))
        // Only a thread that sleeps with nothing to wait for needs waking: any other entry is due first.
        if pending.count - start == 1 { condition.signal() }
        condition.unlock()
    }

    private func expireForever() {
        condition.lock()
        while true {
            guard start < pending.count else {
                condition.wait()
                continue
            }
            let remaining = pending[start].due - .now
            guard remaining <= .zero else {
                // At most a second at a time: the wall clock the wait uses may be set back.
                let (whole, fraction) = remaining.components
                _ = condition.wait(until: Date(timeIntervalSinceNow: min(1, Double(whole) + Double(fraction) / 1e18)))
                continue
            }
            let expire = pending[start].expire
            start += 1
            if start >= 1024 && start * 2 >= pending.count {
                pending.removeFirst(start)
                start = 0
            }
            condition.unlock()
            expire()
            condition.lock()
        }
    }
}
