import Logging
import Dispatch

/// The leader's job: fetch → render → store, on the leader's own worker thread.
public struct ThumbnailPipeline: Sendable {
    public let fetcher: OriginFetcher
    public let renderer: Renderer
    public let store: CacheStore
    public let logger: Logger

    public init(fetcher: OriginFetcher, renderer: Renderer, store: CacheStore, logger: Logger) {
        self.fetcher = fetcher
        self.renderer = renderer
        self.store = store
        self.logger = logger
    }

    /// Makes the thumbnail for `request` and publishes it at the path for `documentURI`.
    /// `previous` is where an earlier job put the same thumbnail (another spelling of the URL):
    /// if that file is still there, it is linked instead of made again.
    public func run(_ request: ThumbnailRequest, documentURI: String, previous: CachePath?) -> JobOutcome {
        if let previous, let reused = reuse(previous, for: documentURI) {
            return .success(reused)
        }
        let started = DispatchTime.now()
        var fetched: DispatchTime?
        var outcome: JobOutcome
        do throws(ThumbError) {
            let source = try fetcher.fetch(request.sourceURL)
            fetched = DispatchTime.now()
            guard let sourceFormat = ContentSniffer.format(of: source.body) else {
                throw .unprocessable("source is not a JPEG, PNG, GIF, WebP or AVIF image (\(source.contentType ?? "no content type"))")
            }
            let rendered = try renderer.render(source.body, sourceFormat: sourceFormat, options: request.options)
            outcome = .success(Thumbnail(bytes: rendered.bytes, format: rendered.format,
                                         stored: publish(rendered, for: documentURI, key: request.key)))
        } catch {
            outcome = .failure(error)
        }
        let finished = DispatchTime.now()
        log(request.key, outcome, fetchMilliseconds: (fetched ?? finished).milliseconds(since: started),
            renderMilliseconds: fetched.map { finished.milliseconds(since: $0) } ?? 0)
        return outcome
    }

    /// nil when the earlier file is gone (evicted, deleted): then the job is done again.
    private func reuse(_ previous: CachePath, for documentURI: String) -> Thumbnail? {
        let path = CachePath(documentURI: documentURI, format: previous.format)
        do throws(ThumbError) {
            let bytes = try store.read(previous)
            try store.alias(path, to: previous)
            return Thumbnail(bytes: bytes, format: previous.format, stored: path)
        } catch {
            return nil
        }
    }

    /// A thumbnail that cannot be stored is still answered; the next request tries again.
    private func publish(_ rendered: Renderer.Rendered, for documentURI: String, key: ThumbnailKey) -> CachePath? {
        let path = CachePath(documentURI: documentURI, format: rendered.format)
        do throws(ThumbError) {
            try store.publish(rendered.bytes, at: path)
            return path
        } catch {
            logger.error("cannot store thumbnail", metadata: ["key": "\(key)", "error": "\(error)"])
            return nil
        }
    }

    private func log(_ key: ThumbnailKey, _ outcome: JobOutcome, fetchMilliseconds: Int, renderMilliseconds: Int) {
        var metadata: Logger.Metadata = [
            "key": "\(key)",
            "fetch_ms": "\(fetchMilliseconds)",
            "render_ms": "\(renderMilliseconds)",
        ]
        switch outcome {
        case .success(let thumbnail):
            metadata["status"] = "200"
            metadata["bytes"] = "\(thumbnail.bytes.count)"
        case .failure(let error):
            metadata["status"] = "\(error.status)"
            metadata["error"] = "\(error)"
        }
        logger.info("miss", metadata: metadata)
    }
}

extension DispatchTime {
    func milliseconds(since start: DispatchTime) -> Int {
        Int((uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000)
    }
}
