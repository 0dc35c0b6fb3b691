import Synchronization
import ThumbRuntime

/// At most `limit` fetches from one host at a time, so one page of a hundred photos does not
/// open a hundred connections to its origin. Waiting here suspends a task, not a thread. The
/// books are kept under a lock held for a dictionary lookup, not in an actor: a job asks without
/// hopping, and a scrape reads the count from any thread.
public final class HostLimiter: Sendable {
    /// Resumed with true when the fetch is refused, false when it has its slot.
    private typealias Waiter = CheckedContinuation<Bool, Never>

    private struct Books {
        var active: [String: Int] = [:]
        var waiting: [String: [Waiter]] = [:]
        var waitingCount = 0
    }

    private let limit: Int
    private let queueLimit: Int
    private let books = Mutex(Books())

    public init(limit: Int, queueLimit: Int) {
        self.limit = limit
        self.queueLimit = queueLimit
    }

    /// Fetches waiting for their host's slot.
    public var waitingCount: Int { books.withLock { $0.waitingCount } }

    /// Throws `.overloaded` when too many fetches already wait for their hosts.
    public func acquire(_ host: String) async throws(JobFailure) {
        let refused = await withCheckedContinuation { (waiter: Waiter) in
            // Decided and queued under one lock, so a release in between cannot miss the waiter.
            let answer = books.withLock { books -> Bool? in
                if books.active[host, default: 0] < limit {
                    books.active[host, default: 0] += 1
                    return false
                }
                guard books.waitingCount < queueLimit else { return true }
                books.waiting[host, default: []].append(waiter)
                books.waitingCount += 1
                return nil
            }
            if let answer { waiter.resume(returning: answer) }
        }
        if refused { throw .overloaded }
    }

    /// Hands the slot to the next waiter for the host, if any.
    public func release(_ host: String) {
        let next = books.withLock { books -> Waiter? in
            if var queue = books.waiting[host], !queue.isEmpty {
                let next = queue.removeFirst()
                books.waiting[host] = queue.isEmpty ? nil : queue
                books.waitingCount -= 1
                return next
            }
            books.active[host, default: 1] -= 1
            if books.active[host] == 0 { books.active[host] = nil }
            return nil
        }
        next?.resume(returning: false)
    }
}
