/// Hands out one job per key. The first request for a key starts the job; every request for the
/// same key that arrives before it ends waits for the same outcome. The actor only keeps the
/// books: the job runs in a task of its own, and the actor ends it however it went, so no
/// waiter can be left behind.
///
/// A finished job leaves a small `Receipt` (where its result is stored), so the next job for the
/// key can reuse the result instead of redoing the work.
public actor Coalescer<Key: Hashable & Sendable, Outcome: Sendable, Receipt: Sendable> {
    private var waiters: [Key: [CheckedContinuation<Outcome, Never>]] = [:]
    /// Receipts of recent jobs, oldest first in `recentOrder`, at most `recentCapacity`.
    private var recent: [Key: Receipt] = [:]
    private var recentOrder: [Key] = []
    private let recentCapacity: Int

    public private(set) var jobsStarted = 0
    public private(set) var requestsJoined = 0

    public init(recentCapacity: Int = 10_000) {
        self.recentCapacity = recentCapacity
    }

    /// Waits for the outcome of the job for `key`. When no job is under way, `job` starts, outside
    /// the actor, with the receipt of the last job for the key; what it returns reaches every
    /// waiter, and its receipt (if any) the next job for the key. The job goes on if the waiters
    /// stop waiting.
    public func outcome(
        for key: Key, job: @escaping @Sendable (Receipt?) async -> (outcome: Outcome, receipt: Receipt?)
    ) async -> Outcome {
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
        // `finish` cannot run before this suspends: the continuation is in place first.
        return await withCheckedContinuation { waiters[key, default: []].append($0) }
    }

    /// Ends the job: every waiter resumes with the same outcome, and the key is free for a new job.
    private func finish(_ key: Key, with outcome: Outcome, receipt: Receipt?) {
        let waiting = waiters.removeValue(forKey: key) ?? []
        if let receipt { record(receipt, for: key) }
        for waiter in waiting {
            waiter.resume(returning: outcome)
        }
    }

    private func record(_ receipt: Receipt, for key: Key) {
        if recent.updateValue(receipt, forKey: key) == nil {
            recentOrder.append(key)
        }
        if recentOrder.count > recentCapacity {
            let evicted = recentOrder.prefix(recentOrder.count - recentCapacity)
            for key in evicted { recent[key] = nil }
            recentOrder.removeFirst(evicted.count)
        }
    }
}
