/// The names and HELP texts of thumbd's metrics. Each kind of metric has its own table, alike in
/// shape on purpose: each is data, read where that kind is made or exported. Where imgproxy has a
/// metric that means the same, the name is imgproxy's (docs/operations.md, "Metrics").
extension Metrics {
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

    /// Counted elsewhere (the coalescers, the shared cache index): exported as counters when scraped.
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

    static let help = (
        requests: "Thumbnail requests that reached thumbd (nginx serves stored thumbnails itself)",
        statusCodes: "Answers to thumbnail requests, by HTTP status",
        errors: "Error answers to thumbnail requests, by the kind of failure",
        requestsInProgress: "Thumbnail requests thumbd has not answered yet (most wait for a job)",
        requestDuration: "Seconds from a thumbnail request reaching thumbd to its answer",
        spanDuration: "Seconds a download (span downloading) or a render (span processing) took on its pool's thread",
        sourceBytes: "Bytes of the sources rendered, by how the render ended",
        resultBytes: "Bytes of the thumbnails rendered",
        workers: "Renders that may run at once (MAX_CONCURRENT_RENDERS, imgproxy's WORKERS)",
        workersUtilization: "Percent of the render slots in use: images_in_progress / workers * 100",
        buildInfo: "Always 1; the labels say which thumbd this is"
    )
}
