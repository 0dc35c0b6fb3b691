import ArgumentParser
import CMalloc
import Dispatch
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif
import ThumbCache
import ThumbFetch
import ThumbImaging
import ThumbJobs
import ThumbRequest
import ThumbRuntime
import ThumbServer

/// Wires the parts together from the configuration and runs until SIGTERM or SIGINT.
struct Service {
    let configuration: Settings

    static let stopSignals = [SIGTERM, SIGINT]
    /// HUP reloads what may change while thumbd runs (`reload`).
    static let reloadSignal = SIGHUP
    /// Not ways to stop thumbd (TERM is): each is noted and ignored.
    static let ignoredSignals = [SIGUSR1, SIGUSR2]

    /// After `Signals.startWithDefaults`, before any thread starts.
    func run() throws {
        let activatedSocket: Int32?
        do throws(SystemFailure) {
            activatedSocket = try ActivatedSocket.take()
        } catch {
            switch error {
            case .internalFailure(let why): StandardError.write("thumbd: \(why)\n")
            }
            throw ExitCode(2)
        }
        Self.returnLargeBuffersToTheSystem()
        let (level, format) = (configuration.logLevel, configuration.logFormat)
        LoggingSystem.bootstrap { _ in LineLogHandler(format: format, logLevel: level) }
        let logger = Logger(label: "thumbd")
        if configuration.signing.acceptsAnySignature {
            logger.warning("""
                insecure mode (INSECURE): URL signatures are not checked, anyone may ask for any thumbnail; with no \
                signature to name files by, every thumbnail is stored privately and every request reaches thumbd
                """)
        }
        try FileManager.default.createDirectory(atPath: configuration.cacheRoot, withIntermediateDirectories: true)

        try MagickPolicy.start(directory: configuration.magickPolicyDirectory, limits: MagickEnvironment.Limits())
        OriginFetcher.initializeGlobally()
        let cache = try CacheUpkeep(
            index: CacheIndex(root: configuration.cacheRoot, path: configuration.cache.indexPath(root: configuration.cacheRoot),
                              maxEntries: configuration.cache.maxEntries),
            settings: configuration.cache,
            oldLayout: OldLayout(parser: configuration.requestPathParser),
            logger: logger
        )
        try Self.removeServedFiles(of: configuration.signing, in: cache.index, logger: logger)
        cache.start()
        let limits = configuration.limits
        let registry = MetricsRegistry(namespace: configuration.prometheusNamespace)
        cache.index.registerMetrics(in: registry)
        let metrics = JobMetrics(registry: registry, workers: limits.renders)
        let fetcher = OriginFetcher(configuration: configuration.fetch)
        let fallback: FallbackImageSource
        do throws(ImagingFailure) {
            fallback = try FallbackImageSource(configuration.fallback)
        } catch {
            logger.critical("cannot use the fallback image", metadata: ["error": "\(error)"])
            throw ExitCode(2)
        }
        fallback.load(with: fetcher, logger: logger)
        let sources = SourceStage(
            fetcher: fetcher,
            localReader: configuration.localFileReader,
            pool: BlockingPool(role: .fetch, threads: limits.fetches, queueLimit: limits.queueSize),
            hosts: HostLimiter(limit: limits.fetchesPerHost, queueLimit: limits.queueSize),
            recent: RecentSources(byteLimit: limits.sourceMemoryBytes, lifetime: .seconds(limits.sourceMemorySeconds),
                                  purges: { [index = cache.index] in index.purgeGeneration }),
            failures: RecentSourceFailures(lifetimes: limits.failureLifetimes),
            metrics: metrics
        )
        let expiry = Task { [recent = sources.recent] in await recent.expireForever() }
        defer { expiry.cancel() }
        let pipeline = ThumbnailPipeline(
            sources: sources,
            renderer: Renderer(configuration: configuration.render),
            renderPool: BlockingPool(role: .render, threads: limits.renders, queueLimit: limits.queueSize),
            store: CacheStore(index: cache.index),
            metrics: metrics,
            logger: logger,
            fallback: fallback,
            answers: FailureAnswer.init(for:)
        )
        Self.returnFreedMemoryWhenIdle(renderPool: pipeline.renderPool)
        let readiness = Readiness(pipeline: pipeline, logger: logger)
        readiness.start()
        let handler = RequestHandler(
            parser: configuration.requestPathParser,
            sourceRules: fetcher.sourceRules,
            negotiation: configuration.negotiation,
            pipeline: pipeline,
            readiness: readiness,
            deadline: limits.requestTimeout,
            metricsAccess: MetricsAccess(token: configuration.metricsToken),
            logger: logger
        )
        // Listening before thumbd answers: a scrape that follows its first answer finds it.
        if let bind = configuration.prometheusBind {
            do throws(SystemFailure) {
                try MetricsListener(bind, logger: logger) { registry.scrape() }.start()
            } catch {
                logger.critical("cannot answer metrics", metadata: ["error": "\(error)"])
                throw ExitCode(2)
            }
        }
        var serverSettings = configuration.server
        serverSettings.activatedSocket = activatedSocket
        let server = try FastCGIServer(serverSettings, handler: handler, logger: logger)
        // libfcgi's own handlers (FCGX_Init's SIGTERM, which does not stop the process; its SIGUSR1,
        // which retires the workers one by one) never run: the signals stay blocked for sigwait.
        var handlers: [Int32: @Sendable () -> Void] = [:]
        for number in Self.stopSignals {
            handlers[number] = {
                logger.info("stopping", metadata: ["signal": "\(number)"])
                server.stop()
            }
        }
        for number in Self.ignoredSignals {
            handlers[number] = {
                logger.notice("signal ignored: thumbd logs to standard error and has nothing to reopen; TERM stops it",
                              metadata: ["signal": "\(number)"])
            }
        }
        handlers[Self.reloadSignal] = { [configuration, index = cache.index] in
            Self.reload(from: configuration, into: handler, fetcher: fetcher, index: index, logger: logger)
        }
        Signals.take(handlers)
        do throws(SystemFailure) {
            try server.run()
        } catch {
            // Not serving is a failure: exit non-zero so that systemd restarts thumbd.
            logger.critical("cannot serve", metadata: ["error": "\(error)"])
            throw ExitCode(1)
        }
    }
    /// Reads the settings again (flags, environment and the settings file, which is what can
    /// have changed) and puts in place every setting declared to reload: the signing keys,
    /// presets, option rules, allowed sources, source addresses, source headers, S3 sources'
    /// settings and credentials, and the metrics token. Settings with
    /// a problem, or that would switch insecure mode, change nothing: the ones in use stay, and the
    /// log says why. Any other setting that changed is named in the line: it takes effect at the
    /// next start, and until then the value it started with stays.
    private static func reload(from running: Settings, into handler: RequestHandler, fetcher: OriginFetcher,
                               index: CacheIndex, logger: Logger) {
        let new: Settings
        switch SettingSources(flags: running.flags).load() {
        case .success(let loaded): new = loaded
        case .failure(let problems):
            logger.error("reload refused; the settings in use stay", metadata: ["problems": "\(problems)"])
            return
        }
        if let problem = new.signingProblem {
            logger.error("reload refused; the settings in use stay", metadata: ["problems": "\(problem)"])
            return
        }
        guard new.signing.acceptsAnySignature == running.signing.acceptsAnySignature else {
            logger.error("reload refused; the settings in use stay",
                         metadata: ["problems": "INSECURE changes how thumbnails are named: restart thumbd to switch it"])
            return
        }
        do throws(CacheFailure) {
            try removeServedFiles(of: new.signing, in: index, logger: logger)
        } catch {
            logger.error("reload refused; the settings in use stay", metadata: [
                "problems": "cannot remove the files stored under a trusted signature: \(error)",
            ])
            return
        }
        handler.rules.replace(with: RequestRules(parser: new.requestPathParser))
        fetcher.sourceRules.replace(with: SourceRules(new.fetch))
        handler.metricsAccess.replace(with: MetricsAccess(token: new.metricsToken))
        let kept = Settings.declared.filter { !$0.reloads && new.given[$0.name] != running.given[$0.name] }
        guard kept.isEmpty else {
            logger.warning("settings reloaded; the changed settings in restart_needed keep their values until a restart",
                           metadata: ["restart_needed": "\(kept.map(\.name).joined(separator: ","))"])
            return
        }
        logger.notice("settings reloaded")
    }


    /// A trusted signature names no file nginx serves; one an older thumbd stored under it (or a
    /// signature newly trusted at a reload stored as a key's) would be served for every URL that
    /// carries it. Gone before any request is taken under these settings.
    private static func removeServedFiles(of signing: SignatureVerifier, in index: CacheIndex,
                                          logger: Logger) throws(CacheFailure) {
        let removed = try index.removeServedFiles(of: signing.trustedSignatures)
        guard removed.files > 0 else { return }
        logger.warning("removed files stored under a trusted signature, which nginx served for any URL carrying it",
                       metadata: ["files": "\(removed.files)", "bytes": "\(removed.bytes)"])
    }

    /// Buffers of a megabyte or more (originals, pixel rows, encoded thumbnails) get their own
    /// mapping, unmapped when freed, and threads share one arena per core. glibc's default
    /// raises its mapping threshold up to 32 MiB after the first large free and keeps such
    /// buffers in per-thread arenas, so a burst of renders stays resident. glibc.malloc.hugetlb
    /// stays unset: it saves no measurable CPU and keeps more of the heap resident.
    private static func returnLargeBuffersToTheSystem() {
        mallopt(M_MMAP_THRESHOLD, 1 << 20)
        mallopt(M_ARENA_MAX, Int32(System.coreCount))
    }

    /// Once renders pause, hands back the pages freed inside malloc's arenas: large buffers are
    /// unmapped when freed, but the smaller ones of a burst leave free holes that stay resident.
    /// Trims 5, 10 and 15 s after the last render, so also after the originals it fetched are
    /// let go (10 s by default).
    /// On a thread of its own: a trim takes the arenas' locks and walks them, which is no work
    /// for Swift's cooperative pool.
    private static func returnFreedMemoryWhenIdle(renderPool: BlockingPool) {
        OwnedThread.start(.trim) {
            System.runInBackground()
            var renders = renderPool.tasksFinished
            var idleTicks = Int.max
            while true {
                Thread.sleep(forTimeInterval: 5)
                let now = renderPool.tasksFinished
                idleTicks = now == renders ? idleTicks &+ 1 : 0
                renders = now
                if (1...3).contains(idleTicks) { malloc_trim(0) }
            }
        }
    }
}
