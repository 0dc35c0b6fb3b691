import Dispatch
import Synchronization

/// Hands out one job per key. The first request for a key starts the job; every request for the
/// same key that arrives before it ends waits for the same outcome. The coalescer only keeps the
/// books, under a lock held for a dictionary lookup: the job runs in a task of its own, and the
/// coalescer ends it however it went, so no waiter can be left behind.
///
/// Joining is a call on the caller's own thread, not a hop onto an actor: a worker joins at once
/// however busy Swift's cooperative pool is, where a storm's 200 joins were 400 steps on it.
///
/// A job's outcome reaches all of its waiters in one work item on libdispatch's threads, off
/// Swift's cooperative pool: a storm's 200 waiters are answered one after another by one thread.
public final class Coalescer<Key: Hashable & Sendable, Outcome: Sendable>: Sendable {
    /// Called once with the job's outcome, on a thread of libdispatch's. It may write an answer,
    /// but not wait long: the job's other waiters are called after it, on the same thread.
    public typealias Waiter = @Sendable (Outcome) -> Void
    public typealias Job = @Sendable () async -> Outcome

    private struct Books {
        var waiters: [Key: [Waiter]] = [:]
        var jobsStarted = 0
        var requestsJoined = 0
    }

    private let books: Mutex<Books>

    public init() {
        books = Mutex(Books())
    }

    public var jobsStarted: Int { books.withLock { $0.jobsStarted } }
    public var requestsJoined: Int { books.withLock { $0.requestsJoined } }

    /// Waits for the outcome of the job for `key`. When no job is under way, `job` starts, in a
    /// task of its own; what it returns reaches every waiter. The job goes on if the waiters stop
    /// waiting.
    public func outcome(for key: Key, job: @escaping Job) async -> Outcome {
        await withCheckedContinuation { continuation in
            join(key, waiter: { continuation.resume(returning: $0) }, job: job)
        }
    }

    /// `waiter` gets the outcome of the job for `key`, started as `outcome(for:job:)` starts it:
    /// for a caller that need not wait in a task of its own.
    /// Returns whether this call started the job.
    @discardableResult
    public func join(_ key: Key, waiter: @escaping Waiter, job: @escaping Job) -> Bool {
        let startsJob = books.withLock { books in
            // In place before the job can end: `finish` takes the same lock.
            defer { books.waiters[key, default: []].append(waiter) }
            guard books.waiters[key] == nil else {
                books.requestsJoined += 1
                return false
            }
            books.jobsStarted += 1
            return true
        }
        guard startsJob else { return false }
        Task.detached {
            self.finish(key, with: await job())
        }
        return true
    }

    /// Ends the job: every waiter gets the same outcome, and the key is free for a new job.
    private func finish(_ key: Key, with outcome: Outcome) {
        let waiting = books.withLock { $0.waiters.removeValue(forKey: key) ?? [] }
        DispatchQueue.global().async {
            for waiter in waiting {
                waiter(outcome)
            }
        }
    }
}
