import Foundation
import Logging
import ThumbCache
import ThumbFetch
import ThumbJobs
import ThumbRequest
import ThumbRuntime

/// One request: parse and verify and look for a file a job just finished, on the worker thread
/// that accepted it; then, for a miss, the job for the thumbnail's key, which runs on thumbd's
/// pools, answers it when it ends (or the deadline does).
public struct RequestHandler: Sendable {
    /// Replaced whole by a reload, as are the source rules (shared with the fetcher) and who may
    /// read the metrics.
    package let rules: Reloadable<RequestRules>
    package let metricsAccess: Reloadable<MetricsAccess>
    private let sourceRules: Reloadable<SourceRules>
    public let negotiation: FormatNegotiation
    public let pipeline: ThumbnailPipeline
    /// What `/ready` answers from, checked on a thread of its own.
    private let readiness: Readiness
    /// Seconds a client waits for a thumbnail before it gets 504.
    public let deadline: Double
    private let deadlines: MissDeadlines
    private let metrics: ServerMetrics
    public let logger: Logger

    /// Metrics in Prometheus' text format, for a client that shows the token (`MetricsAccess`).
    public static let metricsPath = "/_thumbd/metrics"

    /// - Parameter sourceRules: the fetcher's own, so that a reload changes the allowed sources
    ///   for the first URL and for every redirect at once.
    package init(parser: RequestPathParser, sourceRules: Reloadable<SourceRules>,
                negotiation: FormatNegotiation = FormatNegotiation(),
                pipeline: ThumbnailPipeline, readiness: Readiness, deadline: Double,
                metricsAccess: MetricsAccess = MetricsAccess(token: nil), logger: Logger) {
        rules = Reloadable(RequestRules(parser: parser))
        self.metricsAccess = Reloadable(metricsAccess)
        self.sourceRules = sourceRules
        self.negotiation = negotiation
        self.pipeline = pipeline
        self.readiness = readiness
        self.deadline = deadline
        deadlines = MissDeadlines(seconds: deadline)
        metrics = ServerMetrics(registry: pipeline.metrics.registry)
        self.logger = logger
    }

    private var store: CacheStore { pipeline.store }

    /// Answers `incoming` through `reply`, exactly once. What needs no job (a stored file, an
    /// error, the metrics, health) is answered at once on the calling worker thread; a miss hands
    /// `reply` to the job's completion (or to the deadline, whichever comes first) and returns, so
    /// the worker goes back to accepting: a slow origin holds callbacks, not threads.
    public func respond(to incoming: IncomingRequest, reply: @escaping @Sendable (OutgoingResponse) -> Void) {
        let started = ContinuousClock.now
        let metrics = self.metrics
        let request: ThumbnailRequest
        switch prepare(incoming, started: started) {
        case .answered(let response, let outcome):
            if let outcome { metrics.answered(status: response.status, error: response.error, outcome: outcome, after: .now - started) }
            return reply(response)
        case .miss(let miss):
            request = miss
        }
        let once = ReplyOnce { response in
            metrics.answered(status: response.status, error: response.error, outcome: response.status < 400 ? .ok : .error,
                             after: .now - started)
            reply(response)
        }
        let handler = self
        // Once the job has answered, the deadline finds nothing left to send.
        deadlines.add {
            guard once.send(.error(ServerFailure.deadlineExceeded)) else { return }
            handler.log("deadline", incoming, status: 504, type: ServerFailure.deadlineExceeded.kind, since: started,
                        source: request.sourceURL)
        }
        // The answer links a second spelling (disk) and is written to nginx: on the thread the
        // coalescer hands the job's outcome to its waiters on, not in a task. The request that
        // started the job is logged by the job, with its fetch and render; the others here.
        pipeline.join(request, documentURI: incoming.documentURI, requestID: incoming.requestID) { outcome, startedHere in
            let answer = handler.answer(outcome, for: request, incoming: incoming)
            if once.send(answer), !startedHere {
                handler.log("joined", incoming, status: answer.status, type: "joined", since: started, source: request.sourceURL)
            }
        }
    }

    /// A request's line, when no job logs it: what it asked, how it ended, how long it took, and
    /// the source's host once the URL parsed (as the job's line has it), so that an operator finds
    /// every answer about one origin.
    private func log(_ message: Logger.Message, _ incoming: IncomingRequest, status: Int, type: String,
                     since started: ContinuousClock.Instant, level: Logger.Level = .info, error: (any ThumbFailure)? = nil,
                     source: String? = nil) {
        logger.log(level: level, message, metadata: {
            var metadata: Logger.Metadata = [
                "request_id": "\(incoming.requestID)",
                "path": "\(RequestPathParser.withoutSignature(incoming.documentURI))",
                "status": "\(status)",
                "type": "\(type)",
                "total_ms": "\(Int((ContinuousClock.now - started) / .milliseconds(1)))",
            ]
            if let error { metadata["error"] = "\(error)" }
            if let source { metadata["origin"] = "\(OriginFetcher.host(of: source))" }
            return metadata
        }())
    }

    private enum Prepared {
        /// With the outcome a thumbnail request's duration is recorded under.
        case answered(OutgoingResponse, ServerMetrics.Outcome?)
        case miss(ThumbnailRequest)
    }

    /// Parse, verify, look for a stored file: everything short of waiting for a job.
    private func prepare(_ incoming: IncomingRequest, started: ContinuousClock.Instant) -> Prepared {
        guard incoming.method == "GET" || incoming.method == "HEAD" else {
            return .answered(.text(405, "method not allowed", headers: [("Allow", "GET, HEAD")]), nil)
        }
        switch incoming.documentURI {
        case Self.metricsPath:
            return .answered(metricsAccess.current.refusal(authorization: incoming.authorization) ?? metricsResponse(), nil)
        case HealthCheck.livenessPath: return .answered(HealthCheck.liveness(), nil)
        case HealthCheck.readinessPath: return .answered(HealthCheck.readiness(readiness), nil)
        default: break
        }
        metrics.requestStarted()
        let parsed: ThumbnailRequest
        do throws(RequestFailure) {
            let rules = self.rules.current
            parsed = try rules.parsedRequests.request(for: incoming.requestURI) { uri throws(RequestFailure) in
                try rules.parser.parse(requestURI: uri)
            }
        } catch {
            return refused(error, incoming, started: started, source: nil)
        }
        do throws(FetchFailure) {
            try sourceRules.current.allowedSources.check(parsed.sourceURL)
        } catch {
            return refused(error, incoming, started: started, source: parsed.sourceURL)
        }
        do throws(RequestFailure) {
            guard URIDecoding.decodedPath(incoming.requestURI) == incoming.documentURI else {
                throw .badRequest("path is not in normal form (dot segments, bad escapes or NUL)")
            }
            if let expiresAt = parsed.options.expiresAt, expiresAt < Int(Date().timeIntervalSince1970) {
                throw .expired
            }
        } catch {
            return refused(error, incoming, started: started, source: parsed.sourceURL)
        }
        let request = parsed.negotiating(negotiation, accept: incoming.accept)
        // Made by a job that ended after nginx looked, or at a name only thumbd looks up.
        if let stored = store.existing(for: request, documentURI: incoming.documentURI) {
            metrics.storedFileAnswered()
            store.index.touch(stored.relative)
            log("stored", incoming, status: 200, type: "stored", since: started, level: .debug, source: parsed.sourceURL)
            return .answered(storedAnswer(stored, made: false, for: request), .stored)
        }
        return .miss(request)
    }

    /// A request refused before any job, with its line: the source's host once the URL parsed.
    private func refused(_ failure: any ThumbFailure, _ incoming: IncomingRequest, started: ContinuousClock.Instant,
                         source: String?) -> Prepared {
        let answer = FailureAnswer(for: failure)
        log("error", incoming, status: answer.status, type: failure.kind, since: started, level: answer.logLevel,
            error: failure, source: source)
        return .answered(errorResponse(failure), .error)
    }

    /// A finished job's answer.
    private func answer(_ outcome: JobOutcome, for request: ThumbnailRequest, incoming: IncomingRequest) -> OutgoingResponse {
        switch outcome {
        case .success(let thumbnail):
            if let fallback = thumbnail.fallback {
                return .fallback(thumbnail.bytes, format: thumbnail.format, fallback, status: thumbnail.fallbackStatus,
                                 varies: request.variesByAccept)
            }
            guard let stored = thumbnail.stored else {
                return .image(thumbnail.bytes, format: thumbnail.format, disposition: ContentDisposition.header(for: request, format: thumbnail.format),
                              varies: request.variesByAccept, expiresAt: request.options.expiresAt)
            }
            return storedAnswer(stored, made: true, for: request)
        case .failure(let error):
            return errorResponse(error)
        }
    }

    /// nginx serves a stored thumbnail from its file, with the headers its request calls for.
    private func storedAnswer(_ stored: CachePath, made: Bool, for request: ThumbnailRequest) -> OutgoingResponse {
        .stored(stored, made: made, disposition: ContentDisposition.header(for: request, format: stored.format),
                varies: request.variesByAccept, expiresAt: request.options.expiresAt)
    }

    /// An error's answer; its line is logged where it happened (here, or by the job).
    private func errorResponse(_ error: any ThumbFailure) -> OutgoingResponse {
        guard case .overloaded? = error as? JobFailure else { return .error(error) }
        return .error(error, headers: [("Retry-After", "1")])
    }

    private func metricsResponse() -> OutgoingResponse {
        OutgoingResponse(status: 200, headers: [
            ("Content-Type", "text/plain; version=0.0.4; charset=utf-8"),
            ("Cache-Control", "no-store"),
        ], body: Array(pipeline.metrics.registry.scrape().utf8))
    }
}
