import Prometheus
import Synchronization

/// What thumbd did, in Prometheus' text format, made by swift-prometheus (a swift-metrics
/// backend; its own API, because only it carries each metric's HELP text): counters of events,
/// histograms of how long requests, fetches and renders took and how large sources were, each
/// labelled by outcome, and what other parts count, read when scraped.
public final class Metrics: Sendable {
    public enum Counter: String, CaseIterable, Sendable {
        case requests
        case storedFileAnswers = "stored_file_answers"
        case originFetches = "origin_fetches"
        case sourceMemoryHits = "source_memory_hits"
        case failureMemoryHits = "failure_memory_hits"
        case renders
        case overloaded
        case deadlinesExceeded = "deadlines_exceeded"
        case fallbacks
        case fallbackRenders = "fallback_renders"

        var help: String {
            switch self {
            case .requests: "Thumbnail requests that reached thumbd (nginx serves stored thumbnails itself)"
            case .storedFileAnswers: "Requests for a thumbnail thumbd found stored: nginx had looked before it was, or only thumbd looks it up"
            case .originFetches: "Sources downloaded from their origin"
            case .sourceMemoryHits: "Sources taken from the memory of recent originals instead of the origin"
            case .failureMemoryHits: "Requests answered from a remembered failure of their source"
            case .renders: "Thumbnails rendered"
            case .overloaded: "Requests refused with 503 because a queue was full"
            case .deadlinesExceeded: "Requests answered with 504 because their thumbnail was not ready in time"
            case .fallbacks: "Jobs answered with the fallback image because their source failed"
            case .fallbackRenders: "Fallback images rendered; one is kept in memory for FALLBACK_IMAGE_TTL and answered from there"
            }
        }
    }

    /// Counted elsewhere (the coalescers, the shared cache index): exported as counters when scraped.
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
            case .cacheHitsReported: "Hits nginx reported in its hits log, by every thumbd sharing the cache"
            case .cacheKeysEvicted: "Thumbnail keys evicted from the cache, by every thumbd sharing it"
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

    public enum Duration: String, CaseIterable, Sendable {
        case request
        case fetch
        case render

        /// Only requests can find their thumbnail stored.
        var outcomes: [Outcome] { self == .request ? [.ok, .stored, .error] : [.ok, .error] }

        var help: String {
            switch self {
            case .request: "Seconds from a thumbnail request reaching thumbd to its answer"
            case .fetch: "Seconds a source download took"
            case .render: "Seconds a render took, decode to encode"
            }
        }
    }

    public let registry = PrometheusCollectorRegistry()
    private let counters: [Counter: Prometheus.Counter]
    private let mirrored: [Mirrored: Prometheus.Counter]
    private let levels: [Level: Gauge]
    private let durations: [Duration: [Outcome: DurationHistogram]]
    private let sourceBytes: [Outcome: ValueHistogram]
    /// Scrapes set the mirrored counters and levels, then emit: one at a time.
    private let scrapes = Mutex(())

    public init() {
        let registry = registry
        func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "thumbd", metricName: metric, unitName: unit, helpText: help)
        }
        counters = Dictionary(uniqueKeysWithValues: Counter.allCases.map {
            ($0, registry.makeCounter(descriptor: name($0.rawValue, "total", $0.help)))
        })
        mirrored = Dictionary(uniqueKeysWithValues: Mirrored.allCases.map {
            ($0, registry.makeCounter(descriptor: name($0.rawValue, "total", $0.help)))
        })
        levels = Dictionary(uniqueKeysWithValues: Level.allCases.map {
            ($0, registry.makeGauge(descriptor: name($0.rawValue, "", $0.help)))
        })
        let seconds: [Swift.Duration] = [.milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
                                         .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5),
                                         .seconds(10), .seconds(30)]
        durations = Dictionary(uniqueKeysWithValues: Duration.allCases.map { duration in
            (duration, Dictionary(uniqueKeysWithValues: duration.outcomes.map { outcome in
                (outcome, registry.makeDurationHistogram(descriptor: name("\(duration.rawValue)_duration", "seconds", duration.help),
                                                         labels: [("outcome", outcome.rawValue)], buckets: seconds))
            }))
        })
        let bytes: [Double] = [16_384, 65_536, 262_144, 1_048_576, 4_194_304, 16_777_216, 67_108_864]
        sourceBytes = Dictionary(uniqueKeysWithValues: [Outcome.ok, .error].map { outcome in
            (outcome, registry.makeValueHistogram(descriptor: name("source", "bytes", "Bytes of the sources rendered, by how the render ended"),
                                                  labels: [("outcome", outcome.rawValue)], buckets: bytes))
        })
    }

    public func increment(_ counter: Counter) {
        counters[counter]?.increment()
    }

    public func record(_ duration: Duration, _ outcome: Outcome, _ elapsed: Swift.Duration) {
        durations[duration]?[outcome]?.record(elapsed)
    }

    public func recordSourceBytes(_ count: Int, _ outcome: Outcome) {
        sourceBytes[outcome]?.record(Double(count))
    }

    /// The text format, with what other parts count read just before.
    public func scrape(mirrored values: [Mirrored: Int], levels readings: [Level: Int]) -> String {
        scrapes.withLock { _ in
            for (name, value) in values {
                mirrored[name]?.reset()
                mirrored[name]?.increment(by: Int64(value))
            }
            for (name, value) in readings { levels[name]?.set(to: Double(value)) }
            return registry.emitToString()
        }
    }
}
