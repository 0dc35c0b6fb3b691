import Prometheus
import Synchronization

/// How many of something run now: counted lock-free where each starts and ends, and set on its
/// gauge only when scraped.
package final class InProgressGauge: Sendable {
    private let count = Atomic(0)
    private let gauge: Gauge

    package init(_ gauge: Gauge) {
        self.gauge = gauge
    }

    package func begin() { count.wrappingAdd(1, ordering: .relaxed) }
    package func end() { count.wrappingSubtract(1, ordering: .relaxed) }

    /// Sets the gauge to the count, which it returns.
    package func publish() -> Int {
        let now = count.load(ordering: .relaxed)
        gauge.set(to: Double(now))
        return now
    }
}
