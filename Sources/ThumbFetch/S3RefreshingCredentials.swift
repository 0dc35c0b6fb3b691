import Foundation
import Synchronization
import ThumbRuntime

/// Temporary credentials from an endpoint (the container endpoint, STS for web identity), kept
/// until `refreshAhead` seconds before they expire, then asked for again by the first fetch
/// thread that needs them, once: the others wait for its answer rather than ask too.
public final class S3RefreshingCredentials: S3CredentialProvider {
    /// The AWS SDKs renew temporary credentials five minutes before they expire.
    public static let refreshAhead = 300.0

    public let source: String
    private let fetch: @Sendable () throws(FetchFailure) -> S3Credentials
    private let now: @Sendable () -> Double
    private let cached = Mutex<S3Credentials?>(nil)

    public init(source: String, now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
                fetch: @escaping @Sendable () throws(FetchFailure) -> S3Credentials) {
        self.source = source
        self.now = now
        self.fetch = fetch
    }

    public func credentials() throws(FetchFailure) -> S3Credentials {
        // Held while asking: a second thread finding them due waits for the first one's answer.
        try cached.withLock { (cached: inout S3Credentials?) throws(FetchFailure) -> S3Credentials in
            if let current = cached, let expiration = current.expiration, expiration - now() > Self.refreshAhead {
                return current
            }
            let fresh = try fetch()
            cached = fresh
            return fresh
        }
    }

    public func discard() {
        cached.withLock { $0 = nil }
    }
}
