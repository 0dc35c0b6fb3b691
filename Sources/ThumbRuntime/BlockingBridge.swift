import Dispatch

/// Lets a thread thumbd owns wait for async work (an actor call, a job) by blocking on a
/// semaphore. Only for worker threads: blocking a thread of Swift's cooperative pool this way
/// deadlocks.
package enum BlockingBridge {
    /// nil when `timeout` passed first; the async work goes on regardless.
    package static func wait<T: Sendable>(timeout: Double, for operation: @escaping @Sendable () async -> T) -> T? {
        let done = DispatchSemaphore(value: 0)
        let box = Box<T>()
        Task {
            box.value = await operation()
            done.signal()
        }
        guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        return box.value
    }

    /// Written by the task before `signal`, read by the waiter only after `wait` succeeded: the
    /// semaphore orders the two, so no lock is needed.
    private final class Box<T>: @unchecked Sendable {
        var value: T?
    }
}
