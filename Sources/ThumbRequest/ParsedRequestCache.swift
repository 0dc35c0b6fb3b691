import Synchronization
import ThumbRuntime

/// The requests parsed last, by the raw REQUEST_URI they were parsed from. A storm is hundreds of
/// requests for one URL at once: all but the first find their request here, for the cost of
/// hashing the path, instead of verifying the signature, reading every option and building the
/// thumbnail's key again, which is most of what a waiting request costs thumbd.
/// Parsing is a function of the path and of the configuration, which is fixed while thumbd runs,
/// so a remembered request is the one parsing would give. Only successes are kept: the last
/// `capacity` of them, the oldest going first.
package final class ParsedRequestCache: Sendable {
    private let requests: Mutex<RecentValues<[UInt8], ThumbnailRequest>>

    package init(capacity: Int = 256) {
        requests = Mutex(RecentValues(capacity: capacity))
    }

    /// The request parsed from `requestURI`: remembered, or parsed now by `parse` (outside the
    /// lock) and remembered if it succeeds.
    package func request(
        for requestURI: [UInt8], parse: ([UInt8]) throws(RequestFailure) -> ThumbnailRequest
    ) throws(RequestFailure) -> ThumbnailRequest {
        if let known = requests.withLock({ $0[requestURI] }) { return known }
        let request = try parse(requestURI)
        requests.withLock { $0.keep(request, for: requestURI) }
        return request
    }
}
