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
public final class BlockingPool: @unchecked Sendable {
    public let name: String
    private let queueLimit: Int
    private let condition = NSCondition()
    private var queue = TaskQueue()
    /// Threads waiting for work: a task handed to one still sits in `queue` until it wakes up,
    /// and must not count against the limit meanwhile.
    private var idle = 0
    private var finished = 0
    private var stopping = false
    private var running: Int

    public init(name: String, threads: Int, queueLimit: Int) {
        self.name = name
        self.queueLimit = queueLimit
        running = threads
        for index in 0..<threads {
            // ImageMagick's decoders recurse deeper than the default stack allows.
            NamedThread.start("thumbd-\(name)-\(index)", stackSize: 8 << 20) { [self] in work() }
        }
    }

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

    /// Queues `work` for one of the pool's threads; false, and `work` dropped, when the queue is
    /// full or the pool is shutting down.
    func submit(_ work: @escaping () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopping, queue.count - idle < queueLimit else { return false }
        queue.append(work)
        condition.signal()
        return true
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
        condition.lock()
        defer { condition.unlock() }
        return max(0, queue.count - idle)
    }

    /// True when the next task would be refused.
    public var isFull: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopping || queue.count - idle >= queueLimit
    }

    /// How many tasks have run to their end.
    public var tasksFinished: Int {
        condition.lock()
        defer { condition.unlock() }
        return finished
    }

    /// Refuses new work from now on; what is queued still runs, then the threads end.
    public func shutdown() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks until every thread has ended (after `shutdown`).
    public func waitUntilStopped() {
        condition.lock()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    private func work() {
        condition.lock()
        while true {
            idle += 1
            while queue.count == 0 && !stopping { condition.wait() }
            idle -= 1
            guard let next = queue.popFirst() else { break }
            condition.unlock()
            next()
            condition.lock()
            finished += 1
        }
        running -= 1
        condition.broadcast()
        condition.unlock()
    }
}
