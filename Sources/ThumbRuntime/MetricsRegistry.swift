import Prometheus
import Synchronization

/// Where each stage registers its metrics, and what a scrape emits: Prometheus' text format, made
/// by swift-prometheus (a swift-metrics backend; its own API, because only it carries each
/// metric's HELP text). The stages name their own metrics and write their HELP texts; the
/// registry makes them under its namespace (`thumbd` unless PROMETHEUS_NAMESPACE says
/// otherwise), and adds the process_* metrics, which are every exporter's, and build_info.
public final class MetricsRegistry: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let namespace: String
    private let process: ProcessGauges
    /// Run before each scrape emits, one scrape at a time: figures counted elsewhere, levels read now.
    private let readers = Mutex<[@Sendable () -> Void]>([])

    public init(namespace: String = "thumbd") {
        self.namespace = namespace
        process = ProcessGauges(registry: registry)
        gauge("build_info", help: "Always 1; the labels say which thumbd this is",
              labels: [("version", ThumbdVersion.current), ("commit", ThumbdVersion.commit)]).set(to: 1)
    }

    /// `<namespace>_<name>_total`.
    public func counter(_ name: String, help: String, labels: [(String, String)] = []) -> Prometheus.Counter {
        registry.makeCounter(descriptor: descriptor(name, "total", help), labels: labels)
    }

    /// One counter per value of a label, made the first time the value comes (those of `made` at once).
    package func labelledCounters<Value: Hashable & Sendable>(
        _ name: String, label: String, help: String, made: [Value] = []
    ) -> LabelledCounters<Value> {
        let (registry, namespace) = (registry, namespace)
        return LabelledCounters(made: made) { value in
            registry.makeCounter(descriptor: Self.descriptor(namespace, name, "total", help), labels: [(label, "\(value)")])
        }
    }

    public func gauge(_ name: String, help: String, labels: [(String, String)] = []) -> Gauge {
        registry.makeGauge(descriptor: descriptor(name, "", help), labels: labels)
    }

    /// A gauge of what runs now, counted where each starts and ends, set when scraped.
    package func inProgress(_ name: String, help: String) -> InProgressGauge {
        let running = InProgressGauge(gauge(name, help: help))
        whenScraped { _ = running.publish() }
        return running
    }

    public func durationHistogram(_ name: String, unit: String, help: String, labels: [(String, String)] = [],
                                  buckets: [Swift.Duration]) -> DurationHistogram {
        registry.makeDurationHistogram(descriptor: descriptor(name, unit, help), labels: labels, buckets: buckets)
    }

    public func valueHistogram(_ name: String, unit: String = "", help: String, labels: [(String, String)] = [],
                               buckets: [Double]) -> ValueHistogram {
        registry.makeValueHistogram(descriptor: descriptor(name, unit, help), labels: labels, buckets: buckets)
    }

    /// A counter kept elsewhere (a coalescer, the cache index), set from `read` when scraped.
    public func mirroredCounter(_ name: String, help: String, read: @escaping @Sendable () -> Int) {
        let counter = counter(name, help: help)
        whenScraped {
            counter.reset()
            counter.increment(by: Int64(read()))
        }
    }

    /// A level (a queue's length, bytes held), set from `read` when scraped.
    public func level(_ name: String, help: String, read: @escaping @Sendable () -> Int) {
        let gauge = gauge(name, help: help)
        whenScraped { gauge.set(to: Double(read())) }
    }

    /// `read` runs before each scrape emits, after those registered before it.
    public func whenScraped(_ read: @escaping @Sendable () -> Void) {
        readers.withLock { $0.append(read) }
    }

    /// The text format, with the figures read just before.
    public func scrape() -> String {
        readers.withLock { readers in
            for read in readers { read() }
            process.update()
            return registry.emitToString()
        }
    }

    private func descriptor(_ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        Self.descriptor(namespace, name, unit, help)
    }

    private static func descriptor(_ namespace: String, _ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: namespace, metricName: name, unitName: unit, helpText: help)
    }
}
