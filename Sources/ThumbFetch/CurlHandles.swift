import Foundation
import ThumbRuntime

/// Idle curl handles, each with its own cache of kept-alive connections, handed to whichever
/// fetch thread needs one: consecutive fetches from one origin skip the TCP and TLS handshakes.
final class CurlHandles: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [CurlEasy] = []

    func take() throws(FetchFailure) -> CurlEasy {
        if let handle = lock.withLock({ idle.popLast() }) { return handle }
        return try CurlEasy()
    }

    func give(_ handle: CurlEasy) {
        lock.withLock { idle.append(handle) }
    }
}
