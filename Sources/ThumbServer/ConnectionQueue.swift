import ThumbRuntime

/// Connections whose request head has arrived whole, from the gate to the workers, first come
/// first served. Once closed, workers take what is left and then stop.
final class ConnectionQueue: Sendable {
    private struct Connections: Sendable {
        var descriptors: [Int32] = []
        var closed = false
    }

    private let connections = Monitor(Connections())

    func put(_ descriptor: Int32) {
        connections.withLock(waking: .one) { $0.descriptors.append(descriptor) }
    }

    /// The next connection, waiting for one; nil once the queue is closed and empty.
    func take() -> Int32? {
        connections.wait { connections in
            if !connections.descriptors.isEmpty { return .done(connections.descriptors.removeFirst()) }
            return connections.closed ? .done(nil) : .sleep()
        }
    }

    func close() {
        connections.withLock(waking: .everyone) { $0.closed = true }
    }
}
