import Foundation

/// Connections whose request head has arrived whole, from the gate to the workers, first come
/// first served. Once closed, workers take what is left and then stop.
final class ConnectionQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var descriptors: [Int32] = []
    private var closed = false

    func put(_ descriptor: Int32) {
        condition.lock()
        descriptors.append(descriptor)
        condition.signal()
        condition.unlock()
    }

    /// The next connection, waiting for one; nil once the queue is closed and empty.
    func take() -> Int32? {
        condition.lock()
        defer { condition.unlock() }
        while descriptors.isEmpty && !closed { condition.wait() }
        return descriptors.isEmpty ? nil : descriptors.removeFirst()
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
