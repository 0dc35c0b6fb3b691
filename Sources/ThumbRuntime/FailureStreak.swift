import Synchronization

/// Whether a repeated failure (a full disk) is going on, so it is logged when it starts and when
/// it ends rather than once per request.
package final class FailureStreak: Sendable {
    private let failing = Mutex(false)

    package init() {}

    /// True when this failure starts a streak.
    package func begin() -> Bool {
        failing.withLock { failing in
            defer { failing = true }
            return !failing
        }
    }

    /// True when a streak was going on.
    package func end() -> Bool {
        failing.withLock { failing in
            defer { failing = false }
            return failing
        }
    }
}
