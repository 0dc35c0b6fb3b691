import Prometheus
import ThumbRuntime

/// What the server counts of the thumbnail requests that reach it: how many, how each was
/// answered (by status, and by the kind of failure), how long it took, and how many wait now.
public final class ServerMetrics: Sendable {
    /// How a request ended.
    public enum Outcome: String, Sendable {
        /// Made for this request.
        case ok
        /// A request for a thumbnail that was stored already.
        case stored
        /// Any error answer.
        case error
    }

    private let requests: Prometheus.Counter
    private let statusCodes: LabelledCounters<Int>
    private let errors: LabelledCounters<String>
    private let durations: [Outcome: DurationHistogram]
    private let inProgress: InProgressGauge
    private let storedFileAnswers: Prometheus.Counter

    public init(registry: MetricsRegistry) {
        requests = registry.counter("requests", help: "Thumbnail requests that reached thumbd (nginx serves stored thumbnails itself)")
        // Every success is a 200: there from the first scrape.
        statusCodes = registry.labelledCounters("status_codes", label: "status", help: "Answers to thumbnail requests, by HTTP status",
                                                made: [200])
        errors = registry.labelledCounters("errors", label: "type", help: "Error answers to thumbnail requests, by the kind of failure")
        durations = Dictionary(uniqueKeysWithValues: [Outcome.ok, .stored, .error].map { outcome in
            (outcome, registry.durationHistogram("request_duration", unit: "seconds",
                                                 help: "Seconds from a thumbnail request reaching thumbd to its answer",
                                                 labels: [("outcome", outcome.rawValue)], buckets: MetricsBuckets.seconds))
        })
        inProgress = registry.inProgress("requests_in_progress",
                                         help: "Thumbnail requests thumbd has not answered yet (most wait for a job)")
        storedFileAnswers = registry.counter("stored_file_answers", help: """
            Requests for a thumbnail thumbd found stored: nginx had looked before it was, or only thumbd looks it up
            """)
    }

    /// A thumbnail request reached thumbd: counted, and in progress until `answered`.
    public func requestStarted() {
        requests.increment()
        inProgress.begin()
    }

    /// The answer to a request `requestStarted` counted: its status, the failure it tells of (if
    /// any) and how long it took.
    public func answered(status: Int, error: (any ThumbFailure)?, outcome: Outcome, after elapsed: Swift.Duration) {
        inProgress.end()
        statusCodes.increment(status)
        if let error { errors.increment(error.kind) }
        durations[outcome]?.record(elapsed)
    }

    /// A request answered from a file thumbd found stored.
    public func storedFileAnswered() {
        storedFileAnswers.increment()
    }
}
