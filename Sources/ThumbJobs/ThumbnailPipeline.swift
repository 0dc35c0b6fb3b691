import Dispatch
import Logging
import Synchronization
import ThumbCache
import ThumbFetch
import ThumbImaging
import ThumbRequest
import ThumbRuntime

/// A thumbnail job, coalesced per key: the source (shared by every thumbnail of it), then the
/// render and the store on the render pool. The orchestration is async; every blocking step runs
/// on a pool of threads thumbd owns.
public struct ThumbnailPipeline: Sendable {
    public typealias ThumbnailCoalescer = Coalescer<ThumbnailKey, JobOutcome>

    public let sources: SourceStage
    public let renderer: Renderer
    public let renderPool: BlockingPool
    public let store: CacheStore
    public let coalescer = ThumbnailCoalescer()
    private let storeFailures = FailureStreak()
    public let metrics: JobMetrics
    public let logger: Logger
    public let fallback: FallbackImageSource?
    private let recentFallbacks: RecentFallbacks
    /// The server's answer to a failure, for the job's log line and a fallback image's status.
    private let answers: @Sendable (any ThumbFailure) -> FailureAnswer

    public init(sources: SourceStage, renderer: Renderer, renderPool: BlockingPool, store: CacheStore,
                metrics: JobMetrics, logger: Logger, fallback: FallbackImageSource? = nil,
                answers: @escaping @Sendable (any ThumbFailure) -> FailureAnswer) {
        self.answers = answers
        self.sources = sources
        self.renderer = renderer
        self.renderPool = renderPool
        self.store = store
        self.metrics = metrics
        self.logger = logger
        self.fallback = fallback
        recentFallbacks = RecentFallbacks(lifetime: .seconds(fallback?.settings.maxAge ?? 0))
        registerMetrics()
    }

    /// `waiter` gets the outcome of the job for `request`, started if none is under way, as the
    /// coalescer calls its waiters, stored under `request`'s own name. The job goes on whether or
    /// not anyone still waits, so a late thumbnail still fills the cache for the next client.
    ///
    /// Where a miss runs, in order, and why each place:
    /// - the gate's thread (epoll) holds a connection until its request head is whole, so a slow
    ///   client holds no worker;
    /// - a FastCGI worker thread parses, verifies, answers what needs no job, and joins here under
    ///   a lock (never an await: a worker must not wait on Swift's pool), then takes the next one;
    /// - the job is a task of its own on Swift's cooperative pool, which only keeps books: it
    ///   awaits the source stage (a coalesced task per source URL, and a free slot of its host)
    ///   and the pools; the memories of failures, recent sources and where keys are stored are
    ///   locks held for a lookup, asked without a hop (there is no actor);
    /// - the fetch and render pools, threads thumbd owns, run everything that blocks: curl,
    ///   ImageMagick, the disk;
    /// - the job's outcome reaches its waiters in one work item on libdispatch's threads, which
    ///   link a second spelling and write each answer, so no worker or task waits for writing;
    /// - two threads end waits early: the deadline thread answers 504 past TIMEOUT, and the
    ///   hangups thread ends a connection whose client has gone.
    ///
    /// The waiter learns whether its request started the job: that request's log line is the
    /// job's, with the fetch and render times, under `requestID`.
    public func join(_ request: ThumbnailRequest, documentURI: String, requestID: String = "",
                     waiter: @escaping @Sendable (JobOutcome, _ startedHere: Bool) -> Void) {
        let pipeline = self
        let startedHere = StartedHere()
        coalescer.join(request.key, waiter: { outcome in
            waiter(pipeline.spelled(outcome, as: request, documentURI: documentURI), startedHere.value)
        }) {
            // Runs before any waiter is called: the coalescer hands the outcome over after the job.
            startedHere.mark()
            let started = DispatchTime.now()
            let job = await pipeline.run(request, documentURI: documentURI)
            pipeline.log(job, of: request, documentURI: documentURI, requestID: requestID,
                         totalMilliseconds: DispatchTime.now().milliseconds(since: started))
            return job.outcome
        }
    }

    /// A job's outcome, what it did (`miss`: fetched and rendered; `linked`: found stored under
    /// another spelling; `remembered`: the fallback image kept for a broken source), and how long
    /// its fetch and its render took.
    private typealias Ran = (outcome: JobOutcome, did: Logger.Message, fetchMilliseconds: Int, renderMilliseconds: Int)

    private func run(_ request: ThumbnailRequest, documentURI: String) async -> Ran {
        if let fallback = recentFallbacks.thumbnail(for: request.key) {
            metrics.increment(.fallbacks)
            return (.success(fallback), "remembered", 0, 0)
        }
        let pipeline = self
        // Stored already under another spelling of the URL, and still there: linked, not made
        // again. Only a key this process remembers storing costs a trip to the pool (the disk).
        if let stored = store.lastStored(request.key), case .success(let linked?) = await renderPool.runCatching({
            () throws(JobFailure) in
            try carried(JobFailure.cache) { () throws(CacheFailure) in
                try pipeline.store.linkIfStillThere(request, documentURI: documentURI, to: stored)
            }
        }) {
            // Answered from its file (X-Accel-Redirect): its bytes are not read.
            return (.success(Thumbnail(bytes: [], format: linked.format, stored: linked)), "linked", 0, 0)
        }
        let started = DispatchTime.now()
        let source = await sources.source(for: request.sourceURL)
        let fetched = DispatchTime.now()
        let outcome = await source.asyncFlatMap { source in
            await renderPool.runCatching { () throws(JobFailure) in
                try pipeline.renderAndPublish(source, request: request, documentURI: documentURI)
            }
        }
        let rendered = DispatchTime.now()
        return (await withFallbackImage(for: outcome, request: request), "miss", fetched.milliseconds(since: started),
                rendered.milliseconds(since: fetched))
    }

    /// A source that failed gets the fallback image, if there is one, rendered with the request's
    /// options and kept for the next requests; if that fails too, the source's error stands.
    private func withFallbackImage(for outcome: JobOutcome, request: ThumbnailRequest) async -> JobOutcome {
        guard case .failure(let error) = outcome, error.fallsBack, let fallback = fallback?.current else {
            return outcome
        }
        let renderer = self.renderer
        let rendered = await renderPool.runCatching { () throws(JobFailure) in
            try carried(JobFailure.imaging) { () throws(ImagingFailure) in
                try renderer.render(fallback.bytes, sourceFormat: fallback.format, options: request.options)
            }
        }
        metrics.increment(.fallbackRenders)
        guard case .success(let image) = rendered else { return outcome }
        metrics.increment(.fallbacks)
        let thumbnail = Thumbnail(bytes: image.bytes, format: image.format, stored: nil, fallback: fallback,
                                  fallbackStatus: fallback.status ?? answers(error).status)
        recentFallbacks.keep(thumbnail, for: request.key)
        return .success(thumbnail)
    }

    /// The outcome as a request that joined the job gets it: a URL that spells the thumbnail
    /// otherwise than the one that started the job gets its own name, a link to the same file.
    /// Called on the waiters' thread, off the cooperative pool: the link is a quick disk call.
    private func spelled(_ outcome: JobOutcome, as request: ThumbnailRequest, documentURI: String) -> JobOutcome {
        guard case .success(let thumbnail) = outcome, let stored = thumbnail.stored else { return outcome }
        do throws(CacheFailure) {
            let own = try store.link(request, documentURI: documentURI, to: stored)
            return .success(Thumbnail(bytes: thumbnail.bytes, format: thumbnail.format, stored: own))
        } catch {
            // The job's own name serves the same picture; only this spelling stays uncached.
            logger.warning("cannot link second spelling", metadata: ["uri": "\(documentURI)", "error": "\(error)"])
            return outcome
        }
    }

    private func renderAndPublish(_ source: FetchedSource, request: ThumbnailRequest,
                                  documentURI: String) throws(JobFailure) -> Thumbnail {
        let options = request.options
        if let limit = options.maxSourceFileSize, source.bytes.count > limit {
            throw .fetch(.sourceTooLarge(limit: limit))
        }
        let bytes: [UInt8]
        let format: ImageFormat
        if request.passesThrough(source.format.asOutput) {
            let passed = try carried(JobFailure.imaging) { () throws(ImagingFailure) in
                try renderer.passThrough(source.bytes, sourceFormat: source.format, options: options)
            }
            (bytes, format) = (passed.bytes, passed.format)
        } else {
            metrics.increment(.renders)
            let rendered: Renderer.Rendered
            do throws(ImagingFailure) {
                rendered = try metrics.measure(.render) { () throws(ImagingFailure) in
                    try renderer.render(source.bytes, sourceFormat: source.format, options: options)
                }
            } catch {
                metrics.recordSourceBytes(source.bytes.count, .error)
                throw .imaging(error)
            }
            metrics.recordSourceBytes(source.bytes.count, .ok)
            metrics.recordResultBytes(rendered.bytes.count)
            if let chosen = rendered.autoQuality { metrics.recordAutoQuality(chosen.quality) }
            (bytes, format) = (rendered.bytes, rendered.format)
        }
        let path = request.cachePath(documentURI: documentURI, format: format)
        return Thumbnail(bytes: bytes, format: format, stored: publish(bytes, at: path, for: request))
    }

    /// A thumbnail that cannot be stored is still answered; the next request tries again. A full
    /// disk fails every store until space comes back: the log says so once, and once when it ends.
    private func publish(_ bytes: [UInt8], at path: CachePath, for request: ThumbnailRequest) -> CachePath? {
        do throws(CacheFailure) {
            try store.publish(bytes, at: path, key: request.key, sourceURL: request.sourceURL)
            if storeFailures.end() { logger.notice("storing thumbnails works again") }
            return path
        } catch {
            let level: Logger.Level = storeFailures.begin() ? .error : .debug
            logger.log(level: level, "cannot store thumbnail; answering without storing until this is fixed",
                       metadata: ["key": "\(request.key)", "error": "\(error)"])
            return nil
        }
    }

    /// The line of the request that started a job: what it asked, of which origin, how it ended
    /// and how long each stage took. An error's detail (libcurl's, ImageMagick's words) is here,
    /// never in the answer.
    private func log(_ job: Ran, of request: ThumbnailRequest, documentURI: String, requestID: String,
                     totalMilliseconds: Int) {
        let outcome = job.outcome
        let level: Logger.Level = if case .failure(let error) = outcome { answers(error).logLevel } else { .info }
        logger.log(level: level, job.did, metadata: {
            var metadata: Logger.Metadata = [
                "request_id": "\(requestID)",
                "path": "\(RequestPathParser.withoutSignature(documentURI))",
                "origin": "\(OriginFetcher.host(of: request.sourceURL))",
                "key": "\(request.key)",
                "fetch_ms": "\(job.fetchMilliseconds)",
                "render_ms": "\(job.renderMilliseconds)",
                "total_ms": "\(totalMilliseconds)",
            ]
            switch outcome {
            case .success(let thumbnail):
                metadata["status"] = "\(thumbnail.fallback == nil ? 200 : thumbnail.fallbackStatus)"
                metadata["type"] = "\(thumbnail.fallback == nil ? "made" : "fallback")"
                metadata["bytes"] = "\(thumbnail.bytes.count)"
            case .failure(let error):
                metadata["status"] = "\(answers(error).status)"
                metadata["type"] = "\(error.kind)"
                metadata["error"] = "\(error)"
            }
            return metadata
        }())
    }
}

extension Result where Success: Sendable {
    func asyncFlatMap<New>(_ transform: (Success) async -> Result<New, Failure>) async -> Result<New, Failure> {
        switch self {
        case .success(let value): await transform(value)
        case .failure(let error): .failure(error)
        }
    }
}

/// Set by a job as it starts, read by the waiter of the request that joined with it.
private final class StartedHere: Sendable {
    private let flag = Atomic(false)
    var value: Bool { flag.load(ordering: .acquiring) }
    func mark() { flag.store(true, ordering: .releasing) }
}
