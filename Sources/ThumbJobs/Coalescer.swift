import Dispatch
import Synchronization
import ThumbRuntime

/// Hands out one job per key. The first request for a key starts the job; every request for the
/// same key that arrives before it ends waits for the same outcome. The coalescer only keeps the
/// books, under a lock held for a dictionary lookup: the job runs in a task of its own, and the
/// coalescer ends it however it went, so no waiter can be left behind.
///
/// Joining is a call on the caller's own thread, not a hop onto an actor: a worker joins at once
/// however busy Swift's cooperative pool is, where a storm's 200 joins were 400 steps on it.
///
/// A finished job leaves a small `Receipt` (where its result is stored), so the next job for the
/// key can reuse the result instead of redoing the work.
///
/// A job's outcome reaches all of its waiters in one work item on libdispatch's threads, off
/// Swift's cooperative pool: a storm's 200 waiters are answered one after another by one thread.
public final class Coalescer<Key: Hashable & Sendable, Outcome: Sendable, Receipt: Sendable>: Sendable {
    /// Called once with the job's outcome, on a thread of libdispatch's. It may write an answer,
    /// but not wait long: the job's other waiters are called after it, on the same thread.
    public typealias Waiter = @Sendable (Outcome) -> Void
    public typealias Job = @Sendable (Receipt?) async -> (outcome: Outcome, receipt: Receipt?)

    private struct Books {
        var waiters: [Key: [Waiter]] = [:]
        /// Receipts of the last jobs.
        var recent: RecentValues<Key, Receipt>
        var jobsStarted = 0
        var requestsJoined = 0
    }

    private let books: Mutex<Books>

    public init(recentCapacity: Int = 10_000) {
        books = Mutex(Books(recent: RecentValues(capacity: recentCapacity)))
    }

    public var jobsStarted: Int { books.withLock { $0.jobsStarted } }
    public var requestsJoined: Int { books.withLock { $0.requestsJoined } }

    /// Waits for the outcome of the job for `key`. When no job is under way, `job` starts, in a
    /// task of its own, with the receipt of the last job for the key; what it returns reaches
    /// every waiter, and its receipt (if any) the next job for the key. The job goes on if the
    /// waiters stop waiting.
    public func outcome(for key: Key, job: @escaping Job) async -> Outcome {
        await withCheckedContinuation { continuation in
            join(key, waiter: { continuation.resume(returning: $0) }, job: job)
        }
    }

    /// `waiter` gets the outcome of the job for `key`, started as `outcome(for:job:)` starts it:
    /// for a caller that need not wait in a task of its own.
    public func join(_ key: Key, waiter: @escaping Waiter, job: @escaping Job) {
        let (startsJob, previous) = books.withLock { books -> (Bool, Receipt?) in
            // In place before the job can end: `finish` takes the same lock.
            defer { books.waiters[key, default: []].append(waiter) }
            guard books.waiters[key] == nil else {
                books.requestsJoined += 1
                return (false, nil)
            }
            books.jobsStarted += 1
            return (true, books.recent[key])
        }
        guard startsJob else { return }
        Task.detached {
            let (outcome, receipt) = await job(previous)
            self.finish(key, with: outcome, receipt: receipt)
        }
    }

    /// Ends the job: every waiter gets the same outcome, and the key is free for a new job.
    private func finish(_ key: Key, with outcome: Outcome, receipt: Receipt?) {
        let waiting = books.withLock { books in
            if let receipt { books.recent.keep(receipt, for: key) }
            return books.waiters.removeValue(forKey: key) ?? []
        }
        DispatchQueue.global().async {
            for waiter in waiting {
                waiter(outcome)
            }
        }
    }
}
