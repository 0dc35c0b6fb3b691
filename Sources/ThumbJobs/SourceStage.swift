import ThumbFetch
import ThumbImaging
import ThumbRuntime

/// The first stage of a job: the source's bytes. Different thumbnails of one source share it:
/// failures are remembered for a while, recent originals are kept in memory, and concurrent
/// requests for one source wait for one fetch, which runs on the fetch pool within the per-host
/// limit.
public struct SourceStage: Sendable {
    public typealias SourceOutcome = Result<FetchedSource, JobFailure>

    public let fetcher: OriginFetcher
    /// nil when `local://` sources are off.
    public let localReader: LocalFileReader?
    public let pool: BlockingPool
    public let hosts: HostLimiter
    public let recent: RecentSources
    public let failures: RecentSourceFailures
    public let coalescer = Coalescer<String, SourceOutcome>()
    public let metrics: JobMetrics

    public init(fetcher: OriginFetcher, localReader: LocalFileReader?, pool: BlockingPool, hosts: HostLimiter,
                recent: RecentSources, failures: RecentSourceFailures, metrics: JobMetrics) {
        self.fetcher = fetcher
        self.localReader = localReader
        self.pool = pool
        self.hosts = hosts
        self.recent = recent
        self.failures = failures
        self.metrics = metrics
    }

    public func source(for url: String) async -> SourceOutcome {
        let stage = self
        // The memories are asked inside the job: a request that came an instant after a job for
        // the URL ended joins none, and its own job finds that job's source (or failure) there
        // instead of fetching it again.
        return await coalescer.outcome(for: url) { await stage.rememberedOrFetched(url) }
    }

    private func rememberedOrFetched(_ url: String) async -> SourceOutcome {
        if let failure = failures.failure(for: url) {
            metrics.increment(.failureMemoryHits)
            return .failure(failure)
        }
        if let source = recent.source(for: url) {
            metrics.increment(.sourceMemoryHits)
            return .success(source)
        }
        let outcome = await fetch(url)
        switch outcome {
        case .success(let source): recent.keep(source, for: url)
        case .failure(let error): failures.remember(error, for: url)
        }
        return outcome
    }

    private func fetch(_ url: String) async -> SourceOutcome {
        let bytes = LocalFileReader.isLocal(url) ? await readLocal(url) : await download(url)
        return bytes.flatMap { response in
            guard let format = ContentSniffer.format(of: response.body) else {
                let declared = response.contentType ?? "no content type"
                return .failure(.imaging(.unprocessable("source \(ContentSniffer.refusal(of: response.body)) (\(declared))")))
            }
            return .success(FetchedSource(bytes: response.body, format: format))
        }
    }

    /// Holds a slot of the source's host for the length of the transfer, not of the decode.
    private func download(_ url: String) async -> Result<OriginFetcher.Response, JobFailure> {
        let host = OriginFetcher.host(of: url)
        do throws(JobFailure) {
            try await hosts.acquire(host)
        } catch {
            return .failure(error)
        }
        metrics.increment(.originFetches)
        let (fetcher, metrics) = (self.fetcher, self.metrics)
        let response = await pool.runCatching { () throws(JobFailure) in
            do throws(FetchFailure) {
                return try metrics.measure(.fetch) { () throws(FetchFailure) in try fetcher.fetch(url) }
            } catch {
                throw .fetch(error)
            }
        }
        hosts.release(host)
        return response
    }

    private func readLocal(_ url: String) async -> Result<OriginFetcher.Response, JobFailure> {
        guard let reader = localReader else { return .failure(.fetch(LocalFileReader.notEnabled)) }
        return await pool.runCatching { () throws(JobFailure) in
            do throws(FetchFailure) {
                return OriginFetcher.Response(body: try reader.read(url), contentType: nil)
            } catch {
                throw .fetch(error)
            }
        }
    }
}
