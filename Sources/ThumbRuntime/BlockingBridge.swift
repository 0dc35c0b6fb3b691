import Dispatch

/// Lets a thread thumbd owns wait for async work (an actor call, a job). Only for worker
/// threads: blocking a thread of Swift's cooperative pool this way deadlocks.
package enum BlockingBridge {
    /// nil when `timeout` passed first; the async work goes on regardless.
    package static func wait<T: Sendable>(timeout: Double, for operation: @escaping @Sendable () async -> T) -> T? {
        let deadline = DispatchTime.now() + timeout
        let outcome = Monitor<T?>(nil)
        Task {
            let value = await operation()
            outcome.withLock(waking: .everyone) { $0 = value }
        }
        return outcome.wait { value in
            if let value { return .done(value) }
            return DispatchTime.now() >= deadline ? .done(nil) : .sleep(until: deadline)
        }
    }
}
