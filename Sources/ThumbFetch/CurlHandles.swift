import Synchronization
import ThumbRuntime

/// Idle curl handles, each with its own cache of kept-alive connections, handed to whichever
/// fetch thread needs one: consecutive fetches from one origin skip the TCP and TLS handshakes.
// Unchecked: curl handles are not Sendable; each is one fetch thread's at a time, handed over under `lock`.
final class CurlHandles: @unchecked Sendable {
    private let lock = Mutex(())
    private var idle: [CurlEasy] = []

    func take() throws(FetchFailure) -> CurlEasy {
        if let handle = lock.withLock({ _ in idle.popLast() }) { return handle }
        return try CurlEasy()
    }

    func give(_ handle: CurlEasy) {
        lock.withLock { _ in idle.append(handle) }
    }
}
