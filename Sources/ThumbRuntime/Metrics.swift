import Prometheus
import Synchronization

/// What thumbd did, in Prometheus' text format, made by swift-prometheus (a swift-metrics
/// backend; its own API, because only it carries each metric's HELP text): requests by status and
/// by kind of error, histograms of how long requests, downloads and renders took and of the bytes
/// in and out, what runs now, and what other parts count, read when scraped. Metric names start
/// with the namespace (`thumbd` unless PROMETHEUS_NAMESPACE says otherwise), but process_*, which
/// are every exporter's.
public final class Metrics: Sendable {
    public enum Counter: String, CaseIterable, Sendable {
        case storedFileAnswers = "stored_file_answers"
        case originFetches = "origin_fetches"
        case sourceMemoryHits = "source_memory_hits"
        case failureMemoryHits = "failure_memory_hits"
        case renders
        case fallbacks
        case fallbackRenders = "fallback_renders"

        var help: String {
            switch self {
            case .storedFileAnswers: "Requests for a thumbnail thumbd found stored: nginx had looked before it was, or only thumbd looks it up"
            case .originFetches: "Sources downloaded from their origin"
            case .sourceMemoryHits: "Sources taken from the memory of recent originals instead of the origin"
            case .failureMemoryHits: "Requests answered from a remembered failure of their source"
            case .renders: "Thumbnails rendered"
            case .fallbacks: "Jobs answered with the fallback image because their source failed"
            case .fallbackRenders: "Fallback images rendered; one is kept in memory for FALLBACK_IMAGE_TTL and answered from there"
            }
        }
    }

    /// Counted elsewhere (the coalescers, the cache index): exported as counters when scraped.
    /// Each kind of metric has its own table of names and HELP texts, alike in shape on purpose:
    /// each is data, read where that kind is exported.
    public enum Mirrored: String, CaseIterable, Sendable {
        case thumbnailJobs = "thumbnail_jobs"
        case thumbnailRequestsJoined = "thumbnail_requests_joined"
        case sourceJobs = "source_jobs"
        case sourceRequestsJoined = "source_requests_joined"
        case cacheHitsReported = "cache_hits_reported"
        case cacheKeysEvicted = "cache_keys_evicted"

        var help: String {
            switch self {
            case .thumbnailJobs: "Thumbnail jobs started (one per key at a time)"
            case .thumbnailRequestsJoined: "Requests that waited for a thumbnail job another request had started"
            case .sourceJobs: "Source jobs started (one per source URL at a time)"
            case .sourceRequestsJoined: "Thumbnail jobs that waited for a source job another had started"
            case .cacheHitsReported: "Hits nginx reported in its hits log that this thumbd read (sum the instances sharing a cache)"
            case .cacheKeysEvicted: "Thumbnail keys this thumbd evicted from the cache (sum the instances sharing it)"
            }
        }
    }

    /// Read when scraped.
    public enum Level: String, CaseIterable, Sendable {
        case cacheEntries = "cache_entries"
        case cacheBytes = "cache_bytes"
        case fetchQueueLength = "fetch_queue_length"
        case renderQueueLength = "render_queue_length"
        case sourceMemoryBytes = "source_memory_bytes"
        case fetchesWaitingForHost = "fetches_waiting_for_host"

        var help: String {
            switch self {
            case .cacheEntries: "Files in the cache index"
            case .cacheBytes: "Bytes of the files in the cache index"
            case .fetchQueueLength: "Fetches waiting for a thread of the fetch pool"
            case .renderQueueLength: "Renders waiting for a thread of the render pool"
            case .sourceMemoryBytes: "Bytes of recent originals kept in memory"
            case .fetchesWaitingForHost: "Fetches waiting for a slot of their origin host"
            }
        }
    }

    /// How a request, a fetch or a render ended.
    public enum Outcome: String, Sendable {
        /// Made for this request, or fetched, or rendered.
        case ok
        /// A request for a thumbnail that was stored already.
        case stored
        /// Any error answer or failure.
        case error
    }

    /// HELP texts of the families made in `init` from no table.
    private static let help = (
        requests: "Thumbnail requests that reached thumbd (nginx serves stored thumbnails itself)",
        statusCodes: "Answers to thumbnail requests, by HTTP status",
        errors: "Error answers to thumbnail requests, by the kind of failure",
        requestsInProgress: "Thumbnail requests thumbd has not answered yet (most wait for a job)",
        requestDuration: "Seconds from a thumbnail request reaching thumbd to its answer",
        spanDuration: "Seconds a download (span downloading) or a render (span processing) took on its pool's thread",
        sourceBytes: "Bytes of the sources rendered, by how the render ended",
        resultBytes: "Bytes of the thumbnails rendered",
        autoqualityQuality: "The quality autoquality chose, per thumbnail whose quality it searched",
        workers: "Renders that may run at once (MAX_CONCURRENT_RENDERS, imgproxy's WORKERS)",
        workersUtilization: "Percent of the render slots in use: images_in_progress / workers * 100",
        buildInfo: "Always 1; the labels say which thumbd this is"
    )

    public let registry = PrometheusCollectorRegistry()
    private let requests: Prometheus.Counter
    private let statusCodes: LabelledCounters<Int>
    private let errors: LabelledCounters<String>
    private let counters: [Counter: Prometheus.Counter]
    private let mirrored: [Mirrored: Prometheus.Counter]
    private let levels: [Level: Gauge]
    private let requestDurations: [Outcome: DurationHistogram]
    private let spanDurations: [Span: [Outcome: DurationHistogram]]
    private let sourceBytes: [Outcome: ValueHistogram]
    private let resultBytes: ValueHistogram
    private let autoqualityQuality: ValueHistogram
    private let requestsInProgress: InProgressGauge
    private let spansInProgress: [Span: InProgressGauge]
    private let workers: Int
    private let workersUtilization: Gauge
    private let process: ProcessGauges
    /// Scrapes set the mirrored counters and levels, then emit: one at a time.
    private let scrapes = Mutex(())

    /// - Parameter workers: the renders that may run at once, which imgproxy calls its workers.
    public init(namespace: String = "thumbd", workers: Int) {
        let registry = registry
        @Sendable func name(_ metric: String, _ unit: String = "", help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: namespace, metricName: metric, unitName: unit, helpText: help)
        }
        let help = Self.help
        requests = registry.makeCounter(descriptor: name("requests", "total", help: help.requests))
        // Every success is a 200: there from the first scrape.
        statusCodes = LabelledCounters(made: [200]) { status in
            registry.makeCounter(descriptor: name("status_codes", "total", help: help.statusCodes), labels: [("status", "\(status)")])
        }
        errors = LabelledCounters { kind in
            registry.makeCounter(descriptor: name("errors", "total", help: help.errors), labels: [("type", kind)])
        }
        counters = Dictionary(uniqueKeysWithValues: Counter.allCases.map {
            ($0, registry.makeCounter(descriptor: name($0.rawValue, "total", help: $0.help)))
        })
        mirrored = Dictionary(uniqueKeysWithValues: Mirrored.allCases.map {
            ($0, registry.makeCounter(descriptor: name($0.rawValue, "total", help: $0.help)))
        })
        levels = Dictionary(uniqueKeysWithValues: Level.allCases.map {
            ($0, registry.makeGauge(descriptor: name($0.rawValue, help: $0.help)))
        })
        let seconds: [Swift.Duration] = [.milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
                                         .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5),
                                         .seconds(10), .seconds(30)]
        requestDurations = Dictionary(uniqueKeysWithValues: [Outcome.ok, .stored, .error].map { outcome in
            (outcome, registry.makeDurationHistogram(descriptor: name("request_duration", "seconds", help: help.requestDuration),
                                                     labels: [("outcome", outcome.rawValue)], buckets: seconds))
        })
        spanDurations = Dictionary(uniqueKeysWithValues: Span.allCases.map { span in
            (span, Dictionary(uniqueKeysWithValues: [Outcome.ok, .error].map { outcome in
                (outcome, registry.makeDurationHistogram(descriptor: name("request_span_duration", "seconds", help: help.spanDuration),
                                                         labels: [("span", span.rawValue), ("outcome", outcome.rawValue)],
                                                         buckets: seconds))
            }))
        })
        let bytes: [Double] = [1_024, 4_096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304, 16_777_216, 67_108_864]
        sourceBytes = Dictionary(uniqueKeysWithValues: [Outcome.ok, .error].map { outcome in
            (outcome, registry.makeValueHistogram(descriptor: name("source", "bytes", help: help.sourceBytes),
                                                  labels: [("outcome", outcome.rawValue)], buckets: bytes))
        })
        resultBytes = registry.makeValueHistogram(descriptor: name("result", "bytes", help: help.resultBytes), buckets: bytes)
        autoqualityQuality = registry.makeValueHistogram(
            descriptor: name("autoquality_quality", help: help.autoqualityQuality), buckets: [30, 40, 50, 60, 70, 75, 80, 85, 90, 95])
        requestsInProgress = InProgressGauge(registry.makeGauge(descriptor: name("requests_in_progress", help: help.requestsInProgress)))
        spansInProgress = Dictionary(uniqueKeysWithValues: Span.allCases.map {
            ($0, InProgressGauge(registry.makeGauge(descriptor: name($0.inProgressName, help: $0.inProgressHelp))))
        })
        self.workers = workers
        registry.makeGauge(descriptor: name("workers", help: help.workers)).set(to: Double(workers))
        workersUtilization = registry.makeGauge(descriptor: name("workers_utilization", help: help.workersUtilization))
        registry.makeGauge(descriptor: name("build_info", help: help.buildInfo),
                           labels: [("version", ThumbdVersion.current), ("commit", ThumbdVersion.commit)]).set(to: 1)
        process = ProcessGauges(registry: registry)
    }

    public func increment(_ counter: Counter) {
        counters[counter]?.increment()
    }

    /// A thumbnail request reached thumbd: counted, and in progress until `answered`.
    public func requestStarted() {
        requests.increment()
        requestsInProgress.begin()
    }

    /// The answer to a request `requestStarted` counted: its status, the failure it tells of (if
    /// any) and how long it took.
    public func answered(status: Int, error: (any ThumbFailure)?, outcome: Outcome, after elapsed: Swift.Duration) {
        requestsInProgress.end()
        statusCodes.increment(status)
        if let error { errors.increment(error.kind) }
        requestDurations[outcome]?.record(elapsed)
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

    /// The text format, with what other parts count and the process's figures read just before.
    public func scrape(mirrored values: [Mirrored: Int], levels readings: [Level: Int]) -> String {
        scrapes.withLock { _ in
            for (name, value) in values {
                mirrored[name]?.reset()
                mirrored[name]?.increment(by: Int64(value))
            }
            for (name, value) in readings { levels[name]?.set(to: Double(value)) }
            _ = requestsInProgress.publish()
            _ = spansInProgress[.fetch]?.publish()
            let renders = spansInProgress[.render]?.publish() ?? 0
            workersUtilization.set(to: Double(renders) / Double(max(1, workers)) * 100)
            process.update()
            return registry.emitToString()
        }
    }
}

extension Result {
    fileprivate var isSuccess: Bool {
        if case .success = self { true } else { false }
    }
}
