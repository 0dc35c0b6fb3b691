import Dispatch

/// Lets a thread thumbd owns wait for async work (an actor call) by blocking on a semaphore.
/// Only for worker threads: blocking a thread of Swift's cooperative pool this way deadlocks.
enum BlockingBridge {
    static func wait<T: Sendable>(for operation: @escaping @Sendable () async -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let box = Box<T>()
        Task {
            box.value = await operation()
            done.signal()
        }
        done.wait()
        return box.value!
    }

    /// Written by the task before `signal`, read by the waiter after `wait`: the semaphore
    /// orders the two, so no lock is needed.
    private final class Box<T>: @unchecked Sendable {
        var value: T?
    }
}
