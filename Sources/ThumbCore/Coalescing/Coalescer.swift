/// Hands out one job per thumbnail key. The first request for a key becomes the leader and does
/// the work on its own thread; every request for the same key that arrives meanwhile waits for
/// the leader's outcome. The actor only keeps the books: no fetching, decoding or file work.
/// A finished job leaves a small `Receipt` (where its result is stored), so a request just
/// behind it need not redo the work.
public actor Coalescer<Key: Hashable & Sendable, Outcome: Sendable, Receipt: Sendable> {
    public enum Role: Sendable {
        /// Do the job, then call `finish`. `previous` is the receipt of the last job for this key.
        case leader(previous: Receipt?)
        /// Another request did the job; this is its outcome.
        case follower(Outcome)
    }

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

    public func join(_ key: Key) async -> Role {
        guard waiters[key] != nil else {
            waiters[key] = []
            jobsStarted += 1
            return .leader(previous: recent[key])
        }
        requestsJoined += 1
        return .follower(await withCheckedContinuation { waiters[key, default: []].append($0) })
    }

    /// Ends the job however it went: every waiter resumes with the same outcome, and the key is
    /// free for a new job.
    public func finish(_ key: Key, with outcome: Outcome, receipt: Receipt?) {
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
