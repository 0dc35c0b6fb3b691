import Foundation

/// Threads thumbd owns for blocking work (curl transfers, ImageMagick, disk), with a bounded
/// queue in front: async code awaits the result without ever blocking Swift's cooperative pool,
/// and work beyond the queue is refused at once instead of piling up. `shutdown` refuses new
/// work, lets what is queued run, and ends the threads.
///
/// Not NIOThreadPool: its queue has no bound (a storm would queue without limit where thumbd
/// answers 503), it cannot give its threads the stack ImageMagick needs, and it would bring
/// swift-nio into the build for one class. Queued work is not cancelled: nothing cancels the
/// tasks that await the pool, since a job goes on when its clients leave, to fill the cache.
public final class BlockingPool: Sendable {
    private struct Work: Sendable {
        var queue = TaskQueue()
        /// Threads waiting for work: a task handed to one still sits in `queue` until it wakes up,
        /// and must not count against the limit meanwhile.
        var idle = 0
        var finished = 0
        var stopping = false
    }

    public let role: OwnedThread.Role
    private let queueLimit: Int
    private let work = Monitor(Work())
    private let threads: [OwnedThread]

    public init(role: OwnedThread.Role, threads: Int, queueLimit: Int) {
        self.role = role
        self.queueLimit = queueLimit
        self.threads = (0..<threads).map { [work] number in
            OwnedThread.start(role, number: number) { Self.serve(work) }
        }
    }

    /// What the pool is for (`fetch`, `render`), as health problems name it.
    public var name: String { role.rawValue }

    /// Runs `body` on one of the pool's threads; nil when the queue is full or the pool is
    /// shutting down.
    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T? {
        await withCheckedContinuation { continuation in
            guard submit({ continuation.resume(returning: body()) }) else {
                continuation.resume(returning: nil)
                return
            }
        }
    }

    /// Queues `task` for one of the pool's threads; false, and `task` dropped, when the queue is
    /// full or the pool is shutting down.
    func submit(_ task: @escaping @Sendable () -> Void) -> Bool {
        work.withLock(waking: .one) { work in
            guard !work.stopping, work.queue.count - work.idle < queueLimit else { return false }
            work.queue.append(task)
            return true
        }
    }

    /// Runs throwing work on the pool; a full queue (`.overloaded`) and the work's own failure
    /// arrive alike.
    public func runCatching<T: Sendable, Failure: PoolRefusal>(
        _ body: @escaping @Sendable () throws(Failure) -> T
    ) async -> Result<T, Failure> {
        await run { Result(catching: body) } ?? .failure(.overloaded)
    }

    /// How many tasks wait for a thread.
    public var queued: Int {
        work.withLock { max(0, $0.queue.count - $0.idle) }
    }

    /// True when the next task would be refused.
    public var isFull: Bool {
        work.withLock { $0.stopping || $0.queue.count - $0.idle >= queueLimit }
    }

    /// How many tasks have run to their end.
    public var tasksFinished: Int {
        work.withLock { $0.finished }
    }

    /// Refuses new work from now on; what is queued still runs, then the threads end.
    public func shutdown() {
        work.withLock(waking: .everyone) { $0.stopping = true }
    }

    /// Blocks until every thread has ended (after `shutdown`).
    public func waitUntilStopped() {
        for thread in threads { thread.join() }
    }

    /// A thread's life: tasks one after another until the pool stops.
    private static func serve(_ work: Monitor<Work>) {
        while let task = nextTask(work) {
            task()
            work.withLock { $0.finished += 1 }
        }
    }

    /// The oldest task, waiting for one; nil once the pool is stopping and its queue is empty.
    private static func nextTask(_ work: Monitor<Work>) -> (@Sendable () -> Void)? {
        var sleeping = false
        return work.wait { work in
            if sleeping { work.idle -= 1 }
            if let task = work.queue.popFirst() { return .done(task) }
            if work.stopping { return .done(nil) }
            work.idle += 1
            sleeping = true
            return .sleep()
        }
    }
}
