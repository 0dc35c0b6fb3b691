import Dispatch

/// Hands out one job per key. The first request for a key starts the job; every request for the
/// same key that arrives before it ends waits for the same outcome. The actor only keeps the
/// books: the job runs in a task of its own, and the actor ends it however it went, so no
/// waiter can be left behind.
///
/// A finished job leaves a small `Receipt` (where its result is stored), so the next job for the
/// key can reuse the result instead of redoing the work.
///
/// A job's outcome reaches all of its waiters in one work item on libdispatch's threads, off the
/// actor: a storm's 200 waiters are answered one after another by one thread, where each used
/// to be a task resumed on its own and a reply dispatched on its own (thumbd's CPU besides the
/// render per storm: 6.7 -> 6.0 ms).
public actor Coalescer<Key: Hashable & Sendable, Outcome: Sendable, Receipt: Sendable> {
    /// Called once with the job's outcome, on a thread of libdispatch's. It may write an answer,
    /// but not wait long: the job's other waiters are called after it, on the same thread.
    public typealias Waiter = @Sendable (Outcome) -> Void
    public typealias Job = @Sendable (Receipt?) async -> (outcome: Outcome, receipt: Receipt?)

    private var waiters: [Key: [Waiter]] = [:]
    /// Receipts of the last jobs.
    private var recent: RecentValues<Key, Receipt>

    public private(set) var jobsStarted = 0
    public private(set) var requestsJoined = 0

    public init(recentCapacity: Int = 10_000) {
        recent = RecentValues(capacity: recentCapacity)
    }

    /// Waits for the outcome of the job for `key`. When no job is under way, `job` starts, outside
    /// the actor, with the receipt of the last job for the key; what it returns reaches every
    /// waiter, and its receipt (if any) the next job for the key. The job goes on if the waiters
    /// stop waiting.
    public func outcome(for key: Key, job: @escaping Job) async -> Outcome {
        await withCheckedContinuation { continuation in
            join(key, waiter: { continuation.resume(returning: $0) }, job: job)
        }
    }

    /// `waiter` gets the outcome of the job for `key`, started as `outcome(for:job:)` starts it:
    /// for a caller that need not wait in a task of its own.
    public func join(_ key: Key, waiter: @escaping Waiter, job: @escaping Job) {
        if waiters[key] == nil {
            waiters[key] = []
            jobsStarted += 1
            let previous = recent[key]
            Task.detached {
                let (outcome, receipt) = await job(previous)
                await self.finish(key, with: outcome, receipt: receipt)
            }
        } else {
            requestsJoined += 1
        }
        // `finish` runs on the actor too: the waiter is in place before the job can end.
        waiters[key, default: []].append(waiter)
    }

    /// Ends the job: every waiter gets the same outcome, and the key is free for a new job.
    private func finish(_ key: Key, with outcome: Outcome, receipt: Receipt?) {
        let waiting = waiters.removeValue(forKey: key) ?? []
        if let receipt { recent.keep(receipt, for: key) }
        DispatchQueue.global().async {
            for waiter in waiting {
                waiter(outcome)
            }
        }
    }
}
