import ThumbRuntime

/// At most `limit` fetches from one host at a time, so one page of a hundred photos does not
/// open a hundred connections to its origin. Waiting here suspends a task, not a thread.
public actor HostLimiter {
    private let limit: Int
    private let queueLimit: Int
    private var active: [String: Int] = [:]
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]
    /// Fetches waiting for their host's slot.
    public private(set) var waitingCount = 0

    public init(limit: Int, queueLimit: Int) {
        self.limit = limit
        self.queueLimit = queueLimit
    }

    /// Throws `.overloaded` when too many fetches already wait for their hosts.
    public func acquire(_ host: String) async throws(ThumbError) {
        if active[host, default: 0] < limit {
            active[host, default: 0] += 1
            return
        }
        guard waitingCount < queueLimit else { throw .overloaded }
        waitingCount += 1
        await withCheckedContinuation { waiting[host, default: []].append($0) }
    }

    /// Hands the slot to the next waiter for the host, if any.
    public func release(_ host: String) {
        if var queue = waiting[host], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[host] = queue.isEmpty ? nil : queue
            waitingCount -= 1
            next.resume()
        } else {
            active[host, default: 1] -= 1
            if active[host] == 0 { active[host] = nil }
        }
    }
}
