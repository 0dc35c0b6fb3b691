import Foundation
import Synchronization

/// A value computed on a thread of its own, for tests that act while requests are in flight.
package final class DetachedResult<T: Sendable>: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = Mutex<T?>(nil)
    /// Where the work was started, which names it when `value()` gives up waiting.
    private let origin: String

    fileprivate init(_ work: @escaping @Sendable () -> T, origin: String) {
        self.origin = origin
        Thread.detachNewThread { [self] in
            let value = work()
            result.withLock { $0 = value }
            done.signal()
        }
    }

    /// Whether the work has ended (`value()` would not wait).
    package var isFinished: Bool { result.withLock { $0 != nil } }

    /// The work's value, once it has ended; an error naming the work when it has not within
    /// `seconds`, longer than any work a test starts so is meant to take.
    package func value(within seconds: Double = 240) throws -> T {
        guard done.wait(timeout: .now() + seconds) == .success else {
            throw StackError("waited \(Int(seconds)) s for the work started at \(origin) to end")
        }
        done.signal()
        return result.withLock { $0! }
    }
}

extension Thread {
    package static func runDetached<T: Sendable>(fileID: String = #fileID, line: Int = #line,
                                                 _ work: @escaping @Sendable () -> T) -> DetachedResult<T> {
        DetachedResult(work, origin: "\(fileID):\(line)")
    }
}
