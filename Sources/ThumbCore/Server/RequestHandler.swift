import Logging

/// One request, start to end, on the worker thread that accepted it: parse and verify, look for
/// a file a job just finished, join or lead the job for the thumbnail's key, answer.
public struct RequestHandler: Sendable {
    public typealias ThumbnailCoalescer = Coalescer<ThumbnailKey, JobOutcome, CachePath>

    public let parser: RequestPathParser
    public let pipeline: ThumbnailPipeline
    public let coalescer: ThumbnailCoalescer
    public let logger: Logger

    public init(parser: RequestPathParser, pipeline: ThumbnailPipeline, coalescer: ThumbnailCoalescer, logger: Logger) {
        self.parser = parser
        self.pipeline = pipeline
        self.coalescer = coalescer
        self.logger = logger
    }

    private var store: CacheStore { pipeline.store }

    public func respond(to incoming: IncomingRequest) -> OutgoingResponse {
        guard incoming.method == "GET" || incoming.method == "HEAD" else {
            return .text(405, "method not allowed", headers: [("Allow", "GET, HEAD")])
        }
        do throws(ThumbError) {
            let request = try parser.parse(rawPath: incoming.requestURI)
            guard URIDecoding.decodedPath(incoming.requestURI) == incoming.documentURI else {
                throw .badRequest("path is not in normal form (dot segments, bad escapes or NUL)")
            }
            if let stored = store.existing(documentURI: incoming.documentURI) {
                return .image(try store.read(stored), format: stored.format)
            }
            let thumbnail = try thumbnail(for: request, documentURI: incoming.documentURI).get()
            return .image(thumbnail.bytes, format: thumbnail.format)
        } catch {
            if case .internalFailure(let detail) = error {
                logger.error("internal failure", metadata: ["uri": "\(incoming.requestURI)", "error": "\(detail)"])
            }
            return .error(error)
        }
    }

    /// Leads the job for the key or waits for the one under way. A follower whose URL spells
    /// the thumbnail differently from the leader's gets its own path as a link to the same file.
    private func thumbnail(for request: ThumbnailRequest, documentURI: String) -> JobOutcome {
        let key = request.key
        let coalescer = self.coalescer
        switch BlockingBridge.wait(for: { await coalescer.join(key) }) {
        case .leader(let previous):
            let outcome = pipeline.run(request, documentURI: documentURI, previous: previous)
            let receipt: CachePath? = if case .success(let thumbnail) = outcome { thumbnail.stored } else { nil }
            BlockingBridge.wait { await coalescer.finish(key, with: outcome, receipt: receipt) }
            return outcome
        case .follower(let outcome):
            if case .success(let thumbnail) = outcome, let stored = thumbnail.stored {
                aliasIfSpelledDifferently(documentURI, to: stored)
            }
            return outcome
        }
    }

    private func aliasIfSpelledDifferently(_ documentURI: String, to stored: CachePath) {
        let own = CachePath(documentURI: documentURI, format: stored.format)
        guard own != stored else { return }
        do throws(ThumbError) {
            try store.alias(own, to: stored)
        } catch {
            logger.warning("cannot link second spelling", metadata: ["uri": "\(documentURI)", "error": "\(error)"])
        }
    }
}
