import Foundation
import Logging

/// One request: parse and verify and look for a file a job just finished, on the worker thread
/// that accepted it; then, for a miss, the job for the thumbnail's key, which runs on thumbd's
/// pools, answers it when it ends (or the deadline does).
public struct RequestHandler: Sendable {
    public let parser: RequestPathParser
    public let allowedSources: SourceAllowList
    public let negotiation: FormatNegotiation
    public let pipeline: ThumbnailPipeline
    /// Seconds a client waits for a thumbnail before it gets 504.
    public let deadline: Double
    public let logger: Logger

    /// Counters in Prometheus' text format; nginx only lets loopback clients reach it.
    public static let metricsPath = "/_thumbd/metrics"

    public init(parser: RequestPathParser, allowedSources: SourceAllowList, negotiation: FormatNegotiation = FormatNegotiation(),
                pipeline: ThumbnailPipeline, deadline: Double, logger: Logger) {
        self.parser = parser
        self.allowedSources = allowedSources
        self.negotiation = negotiation
        self.pipeline = pipeline
        self.deadline = deadline
        self.logger = logger
    }

    private var store: CacheStore { pipeline.store }
    private var metrics: Metrics { pipeline.metrics }

    /// Answers `incoming` through `reply`, exactly once. What needs no job (a stored file, an
    /// error, the metrics) is answered at once on the calling worker thread; a miss hands `reply`
    /// to the job's completion (or to the deadline, whichever comes first) and returns, so the
    /// worker goes back to accepting: a slow origin holds continuations, not threads.
    public func respond(to incoming: IncomingRequest, reply: @escaping @Sendable (OutgoingResponse) -> Void) {
        let request: ThumbnailRequest
        switch prepare(incoming) {
        case .answered(let response):
            return reply(response)
        case .miss(let miss):
            request = miss
        }
        let once = ReplyOnce(reply)
        let handler = self
        let timer = Task.detached {
            try await Task.sleep(nanoseconds: UInt64(handler.deadline * 1_000_000_000))
            Self.replies.async {
                // A job that ended in the same instant answered already: not a 504.
                if once.send(.error(.deadlineExceeded)) { handler.metrics.increment(.deadlinesExceeded) }
            }
        }
        Task.detached {
            let outcome = await handler.pipeline.thumbnail(for: request, documentURI: incoming.documentURI)
            timer.cancel()
            // Linking a second spelling touches the disk and the reply writes to nginx: both
            // happen off Swift's cooperative pool.
            Self.replies.async {
                once.send(handler.answer(outcome, for: request, incoming: incoming))
            }
        }
    }

    /// Where finished jobs' answers are written from: threads of its own, never the
    /// cooperative pool.
    private static let replies = DispatchQueue(label: "thumbd-replies", attributes: .concurrent)

    private enum Prepared {
        case answered(OutgoingResponse)
        case miss(ThumbnailRequest)
    }

    /// Parse, verify, look for a stored file: everything short of waiting for a job.
    private func prepare(_ incoming: IncomingRequest) -> Prepared {
        guard incoming.method == "GET" || incoming.method == "HEAD" else {
            return .answered(.text(405, "method not allowed", headers: [("Allow", "GET, HEAD")]))
        }
        if incoming.documentURI == Self.metricsPath {
            return .answered(.text(200, metricsText()))
        }
        metrics.increment(.requests)
        do throws(ThumbError) {
            let parsed = try parser.parse(rawPath: incoming.requestURI)
            try allowedSources.check(parsed.sourceURL)
            guard URIDecoding.decodedPath(incoming.requestURI) == incoming.documentURI else {
                throw .badRequest("path is not in normal form (dot segments, bad escapes or NUL)")
            }
            if let expiresAt = parsed.options.expiresAt, expiresAt < Int(Date().timeIntervalSince1970) {
                throw .expired
            }
            let request = parsed.negotiating(negotiation, accept: incoming.accept)
            // Made by a job that ended after nginx looked, or at a name only thumbd looks up.
            if let stored = store.existing(documentURI: incoming.documentURI, naming: request.naming,
                                           negotiated: request.negotiated ? request.options.format : nil) {
                metrics.increment(.storedFileAnswers)
                store.index.touch(stored.relative)
                return .answered(storedAnswer(stored, made: false, for: request))
            }
            return .miss(request)
        } catch {
            return .answered(errorResponse(error, uri: incoming.requestURI))
        }
    }

    /// A finished job's answer; a request whose URL spells the thumbnail differently from the
    /// one that started the job gets its own path as a link to the same file.
    private func answer(_ outcome: JobOutcome, for request: ThumbnailRequest, incoming: IncomingRequest) -> OutgoingResponse {
        switch outcome {
        case .success(let thumbnail):
            guard let stored = thumbnail.stored else {
                return .image(thumbnail.bytes, format: thumbnail.format, disposition: ContentDisposition.header(for: request, format: thumbnail.format),
                              varies: request.variesByAccept, expiresAt: request.options.expiresAt)
            }
            aliasIfSpelledDifferently(incoming.documentURI, to: stored, for: request)
            return storedAnswer(stored, made: true, for: request)
        case .failure(let error):
            return errorResponse(error, uri: incoming.requestURI)
        }
    }

    /// nginx serves a stored thumbnail from its file, with the headers its request calls for.
    private func storedAnswer(_ stored: CachePath, made: Bool, for request: ThumbnailRequest) -> OutgoingResponse {
        .stored(stored, made: made, disposition: ContentDisposition.header(for: request, format: stored.format),
                varies: request.variesByAccept, expiresAt: request.options.expiresAt)
    }

    private func errorResponse(_ error: ThumbError, uri: String) -> OutgoingResponse {
        switch error {
        case .internalFailure(let detail):
            logger.error("internal failure", metadata: ["uri": "\(uri)", "error": "\(detail)"])
        case .overloaded:
            metrics.increment(.overloaded)
            return .error(error, headers: [("Retry-After", "1")])
        default:
            break
        }
        return .error(error)
    }

    private func aliasIfSpelledDifferently(_ documentURI: String, to stored: CachePath, for request: ThumbnailRequest) {
        let own = CachePath(documentURI: documentURI, format: stored.format, naming: request.naming)
        guard own != stored else { return }
        do throws(ThumbError) {
            try store.alias(own, to: stored, key: request.key, sourceURL: request.sourceURL)
        } catch {
            logger.warning("cannot link second spelling", metadata: ["uri": "\(documentURI)", "error": "\(error)"])
        }
    }

    private func metricsText() -> String {
        let thumbnails = pipeline.coalescer
        let sources = pipeline.sources.coalescer
        let hosts = pipeline.sources.hosts
        let recent = pipeline.sources.recent
        let coalescing = BlockingBridge.wait(timeout: 5) {
            (await thumbnails.jobsStarted, await thumbnails.requestsJoined,
             await sources.jobsStarted, await sources.requestsJoined, await hosts.waitingCount,
             await recent.heldBytes)
        }
        var lines = Metrics.Counter.allCases.map { "thumbd_\($0.rawValue)_total \(metrics.value($0))" }
        if let (jobs, joined, sourceJobs, sourceJoined, waitingForHost, heldSourceBytes) = coalescing {
            lines += [
                "thumbd_source_memory_bytes \(heldSourceBytes)",
                "thumbd_fetches_waiting_for_host \(waitingForHost)",
                "thumbd_thumbnail_jobs_total \(jobs)",
                "thumbd_thumbnail_requests_joined_total \(joined)",
                "thumbd_source_jobs_total \(sourceJobs)",
                "thumbd_source_requests_joined_total \(sourceJoined)",
            ]
        }
        let cache = store.index.usage
        lines += [
            "thumbd_fetch_queue_length \(pipeline.sources.pool.queued)",
            "thumbd_render_queue_length \(pipeline.renderPool.queued)",
            "thumbd_cache_entries \(cache.entries)",
            "thumbd_cache_bytes \(cache.bytes)",
            "thumbd_cache_hits_reported_total \(cache.hitsReported)",
            "thumbd_cache_keys_evicted_total \(cache.keysEvicted)",
        ]
        return lines.joined(separator: "\n")
    }
}
