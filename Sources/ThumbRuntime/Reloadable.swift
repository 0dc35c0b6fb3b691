import Synchronization

/// A value the running process may replace (on SIGHUP): each reader takes the whole of the old
/// value or the whole of the new one, never a mix.
package final class Reloadable<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    package init(_ value: Value) {
        self.value = Mutex(value)
    }

    package var current: Value { value.withLock { $0 } }

    package func replace(with new: Value) {
        value.withLock { $0 = new }
    }
}
