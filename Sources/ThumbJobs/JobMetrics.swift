import Prometheus
import ThumbRuntime

/// What the jobs count: sources fetched or remembered, renders and fallbacks, how long each
/// download and render took on its pool's thread and how many run now, and the bytes in and out.
public final class JobMetrics: Sendable {
    public enum Counter: String, CaseIterable, Sendable {
        case originFetches = "origin_fetches"
        case sourceMemoryHits = "source_memory_hits"
        case failureMemoryHits = "failure_memory_hits"
        case renders
        case fallbacks
        case fallbackRenders = "fallback_renders"

        var help: String {
            switch self {
            case .originFetches: "Sources downloaded from their origin"
            case .sourceMemoryHits: "Sources taken from the memory of recent originals instead of the origin"
            case .failureMemoryHits: "Requests answered from a remembered failure of their source"
            case .renders: "Thumbnails rendered"
            case .fallbacks: "Jobs answered with the fallback image because their source failed"
            case .fallbackRenders: "Fallback images rendered; one is kept in memory for FALLBACK_IMAGE_TTL and answered from there"
            }
        }
    }

    /// A stage of a job that runs on a pool's thread, timed and counted while it runs. The raw
    /// values are imgproxy's span names.
    public enum Span: String, CaseIterable, Sendable {
        /// A source's download, once it has a thread of the fetch pool.
        case fetch = "downloading"
        /// A render, decode to encode, on a thread of the render pool.
        case render = "processing"

        /// imgproxy's name for renders in progress is images_in_progress.
        var inProgressName: String { self == .fetch ? "fetches_in_progress" : "images_in_progress" }

        var inProgressHelp: String {
            switch self {
            case .fetch: "Source downloads running now (on the fetch pool's threads)"
            case .render: "Renders running now (on the render pool's threads)"
            }
        }
    }

    /// How a download or a render ended.
    public enum Outcome: String, Sendable {
        case ok
        case error
    }

    /// Where the pipeline registers the figures it reads when scraped.
    public let registry: MetricsRegistry
    private let counters: [Counter: Prometheus.Counter]
    private let spanDurations: [Span: [Outcome: DurationHistogram]]
    private let spansInProgress: [Span: InProgressGauge]
    private let sourceBytes: [Outcome: ValueHistogram]
    private let resultBytes: ValueHistogram
    private let autoqualityQuality: ValueHistogram

    /// - Parameter workers: the renders that may run at once, which imgproxy calls its workers.
    public init(registry: MetricsRegistry, workers: Int) {
        self.registry = registry
        counters = Dictionary(uniqueKeysWithValues: Counter.allCases.map { ($0, registry.counter($0.rawValue, help: $0.help)) })
        spanDurations = Dictionary(uniqueKeysWithValues: Span.allCases.map { span in
            (span, Dictionary(uniqueKeysWithValues: [Outcome.ok, .error].map { outcome in
                (outcome, registry.durationHistogram(
                    "request_span_duration", unit: "seconds",
                    help: "Seconds a download (span downloading) or a render (span processing) took on its pool's thread",
                    labels: [("span", span.rawValue), ("outcome", outcome.rawValue)], buckets: MetricsBuckets.seconds))
            }))
        })
        spansInProgress = Dictionary(uniqueKeysWithValues: Span.allCases.map {
            ($0, InProgressGauge(registry.gauge($0.inProgressName, help: $0.inProgressHelp)))
        })
        sourceBytes = Dictionary(uniqueKeysWithValues: [Outcome.ok, .error].map { outcome in
            (outcome, registry.valueHistogram("source", unit: "bytes", help: "Bytes of the sources rendered, by how the render ended",
                                              labels: [("outcome", outcome.rawValue)], buckets: MetricsBuckets.bytes))
        })
        resultBytes = registry.valueHistogram("result", unit: "bytes", help: "Bytes of the thumbnails rendered",
                                              buckets: MetricsBuckets.bytes)
        autoqualityQuality = registry.valueHistogram("autoquality_quality",
                                                     help: "The quality autoquality chose, per thumbnail whose quality it searched",
                                                     buckets: [30, 40, 50, 60, 70, 75, 80, 85, 90, 95])
        registry.gauge("workers", help: "Renders that may run at once (MAX_CONCURRENT_RENDERS, imgproxy's WORKERS)")
            .set(to: Double(workers))
        let utilization = registry.gauge("workers_utilization",
                                         help: "Percent of the render slots in use: images_in_progress / workers * 100")
        let (fetches, renders) = (spansInProgress[.fetch], spansInProgress[.render])
        registry.whenScraped {
            _ = fetches?.publish()
            let running = renders?.publish() ?? 0
            utilization.set(to: Double(running) / Double(max(1, workers)) * 100)
        }
    }

    public func increment(_ counter: Counter) {
        counters[counter]?.increment()
    }

    /// Runs `work`, a download or a render on a pool's thread, counted in progress while it runs
    /// and timed by how it ended.
    public func measure<T, Failure: Error>(_ span: Span, _ work: () throws(Failure) -> T) throws(Failure) -> T {
        let running = spansInProgress[span]
        running?.begin()
        defer { running?.end() }
        let started = ContinuousClock.now
        let result = Result(catching: work)
        spanDurations[span]?[result.isSuccess ? .ok : .error]?.record(.now - started)
        return try result.get()
    }

    public func recordSourceBytes(_ count: Int, _ outcome: Outcome) {
        sourceBytes[outcome]?.record(Double(count))
    }

    public func recordResultBytes(_ count: Int) {
        resultBytes.record(Double(count))
    }

    public func recordAutoQuality(_ quality: Int) {
        autoqualityQuality.record(Double(quality))
    }
}

extension Result {
    fileprivate var isSuccess: Bool {
        if case .success = self { true } else { false }
    }
}
