/// The values of the last `capacity` keys kept, the oldest key going first once it is full. The
/// keys wait in a ring, so keeping one costs the same however many are kept.
package struct RecentValues<Key: Hashable, Value> {
    private var values: [Key: Value] = [:]
    /// The keys in the order they came; once full, the next to go is at `oldest`.
    private var order: [Key] = []
    private var oldest = 0
    let capacity: Int

    package init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    package subscript(key: Key) -> Value? { values[key] }

    /// Keeps `value` for `key`; a key already kept gets the new value and keeps its place.
    package mutating func keep(_ value: Value, for key: Key) {
        guard values.updateValue(value, forKey: key) == nil else { return }
        guard order.count == capacity else { return order.append(key) }
        values[order[oldest]] = nil
        order[oldest] = key
        oldest = (oldest + 1) % capacity
    }
}

extension RecentValues: Sendable where Key: Sendable, Value: Sendable {}
