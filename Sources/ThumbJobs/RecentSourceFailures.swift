import Dispatch
import Synchronization
import ThumbRuntime

/// Failed sources, remembered for a short time, so a missing or broken source is not fetched
/// again on every request: missing ones (404) longer than failing ones (5xx, timeouts), which
/// may recover soon. Kept under a lock, not in an actor: a job asks without hopping.
public final class RecentSourceFailures: Sendable {
    public struct Lifetimes: Sendable {
        public var notFound: Double = 30
        public var failure: Double = 5

        public init() {}
    }

    private let failures = Mutex<[String: (error: JobFailure, until: UInt64)]>([:])
    private let lifetimes: Lifetimes

    public init(lifetimes: Lifetimes) {
        self.lifetimes = lifetimes
    }

    public func failure(for url: String) -> JobFailure? {
        failures.withLock { failures in
            guard let remembered = failures[url] else { return nil }
            guard remembered.until > DispatchTime.now().uptimeNanoseconds else {
                failures[url] = nil
                return nil
            }
            return remembered.error
        }
    }

    /// Overload and internal failures say nothing about the source and are not remembered.
    public func remember(_ error: JobFailure, for url: String) {
        let seconds: Double
        switch error {
        case .fetch(.sourceNotFound), .fetch(.forbidden), .fetch(.sourceNotAllowed), .fetch(.sourceTooLarge),
             .imaging(.unprocessable), .imaging(.undecodable), .imaging(.overLimit):
            seconds = lifetimes.notFound
        case .fetch(.originFailed), .fetch(.originTimeout): seconds = lifetimes.failure
        case .fetch(.invalidURL), .fetch(.badRequest), .fetch(.internalFailure), .imaging(.internalFailure), .cache, .overloaded:
            return
        }
        guard seconds > 0 else { return }
        let until = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        failures.withLock { failures in
            if failures.count > 100_000 { failures.removeAll() }  // a flood of distinct failures; start over
            failures[url] = (error, until)
        }
    }
}
