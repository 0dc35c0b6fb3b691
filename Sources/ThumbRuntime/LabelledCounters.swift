import Prometheus
import Synchronization

/// One counter per value of a label (an HTTP status, a kind of error), made the first time the
/// value comes: a request looks its counter up by the value itself, under a lock held for one
/// dictionary lookup, where asking the registry would format and check the label's text each time.
package final class LabelledCounters<Value: Hashable & Sendable>: Sendable {
    private let counters = Mutex<[Value: Prometheus.Counter]>([:])
    private let make: @Sendable (Value) -> Prometheus.Counter

    /// The counters of `made` are made now, so that they are exported (at 0) before they are counted.
    init(made: [Value] = [], make: @escaping @Sendable (Value) -> Prometheus.Counter) {
        self.make = make
        counters.withLock { counters in
            for value in made { counters[value] = make(value) }
        }
    }

    package func increment(_ value: Value) {
        counters.withLock { counters in
            if let counter = counters[value] { return counter }
            let counter = make(value)
            counters[value] = counter
            return counter
        }.increment()
    }
}
