import Foundation

/// A value computed on a thread of its own, for tests that act while requests are in flight.
package final class DetachedResult<T>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var result: T?

    fileprivate init(_ work: @escaping @Sendable () -> T) {
        Thread.detachNewThread { [self] in
            let value = work()
            lock.withLock { result = value }
            done.signal()
        }
    }

    /// Whether the work has ended (`value()` would not wait).
    package var isFinished: Bool { lock.withLock { result != nil } }

    package func value() -> T {
        done.wait()
        done.signal()
        return lock.withLock { result! }
    }
}

extension Thread {
    package static func runDetached<T>(_ work: @escaping @Sendable () -> T) -> DetachedResult<T> {
        DetachedResult(work)
    }
}
