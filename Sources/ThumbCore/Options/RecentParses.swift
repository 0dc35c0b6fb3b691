import Synchronization

/// The requests parsed last, by the raw REQUEST_URI they were parsed from. A storm is hundreds of
/// requests for one URL at once: all but the first find their request here, for the cost of
/// hashing the path, instead of verifying the signature, reading every option and building the
/// thumbnail's key again (about 10 µs each, a third of what a waiting request cost thumbd).
/// Parsing is a function of the path and of the configuration, which is fixed while thumbd runs,
/// so a remembered request is the one parsing would give. Only successes are kept: the last
/// `capacity` of them, the oldest going first.
final class RecentParses: Sendable {
    private struct Memory {
        var requests: [[UInt8]: ThumbnailRequest] = [:]
        /// The paths in the order they came; the next to go is at `oldest` once full.
        var order: [[UInt8]] = []
        var oldest = 0

        mutating func keep(_ request: ThumbnailRequest, for path: [UInt8], capacity: Int) {
            guard requests.updateValue(request, forKey: path) == nil else { return }
            guard order.count == capacity else { return order.append(path) }
            requests[order[oldest]] = nil
            order[oldest] = path
            oldest = (oldest + 1) % capacity
        }
    }

    private let capacity: Int
    private let memory = Mutex(Memory())

    init(capacity: Int = 256) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// The request parsed from `requestURI`: remembered, or parsed now by `parse` (outside the
    /// lock) and remembered if it succeeds.
    func request(
        for requestURI: [UInt8], parse: ([UInt8]) throws(ThumbError) -> ThumbnailRequest
    ) throws(ThumbError) -> ThumbnailRequest {
        if let known = memory.withLock({ $0.requests[requestURI] }) { return known }
        let request = try parse(requestURI)
        memory.withLock { $0.keep(request, for: requestURI, capacity: capacity) }
        return request
    }
}
