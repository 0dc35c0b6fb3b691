import Foundation
import Logging
import Synchronization
import ThumbRuntime

/// The cache's background work in a serving thumbd: the start-up scan (again whenever the index
/// has to be rebuilt), reading nginx's hits, and eviction. None of it runs on a request's path.
public final class CacheUpkeep: Sendable {
    public let index: CacheIndex
    private let scan: CacheScan
    private let hitsPath: String
    private let evictor: Evictor
    private let logger: Logger
    private let scanning = Mutex(false)
    private let failures = FailureStreak()
    /// Set by a store that takes the cache past a bound: eviction then runs at once, not at the
    /// next round, so what the cache passes its bound by is what is stored meanwhile. The first
    /// such store wakes the upkeep thread; a burst of them finds it awake.
    private let overBound = Monitor(false)

    public init(index: CacheIndex, settings: CacheSettings, oldLayout: OldLayout, logger: Logger) throws(CacheFailure) {
        self.index = index
        self.logger = logger
        scan = CacheScan(index: index, oldLayout: oldLayout, logger: logger)
        let hitsPath = settings.hitsLogPath(root: index.root)
        // Root may write where it likes; another user must not be able to swap the log for a link.
        if geteuid() != 0, let directory = ReplaceablePath.directory(where: .current, canReplace: hitsPath) {
            logger.warning("""
                thumbd's user can replace the hits log, through a directory it may write: nginx's master opens \
                that log as root, so a link put in its place would have root write where the link leads \
                (CVE-2016-1247); give the log a directory only root may write, such as the package's /var/log/thumbd
                """, metadata: ["log": "\(hitsPath)", "directory": "\(directory)"])
        }
        if let problem = HitLog.create(hitsPath) {
            logger.warning("cannot make the hits log; hits are not counted until it exists",
                           metadata: ["log": "\(hitsPath)", "error": "\(problem)"])
        }
        self.hitsPath = hitsPath
        evictor = Evictor(index: index, settings: settings, logger: logger)
        try index.publishBounds(maxBytes: settings.maxBytes, maxEntries: settings.maxEntries,
                                lowWaterPercent: settings.lowWaterPercent)
    }

    public func start() {
        index.onRebuild { [self] in
            logger.warning("cache index was damaged or replaced; rebuilding it from the directory")
            startScan()
        }
        index.onStored { [self] in
            switch evictor.overrun {
            case .within: break
            case .past:
                overBound.withLock(waking: .one) { $0 = true }
            // The upkeep thread has fallen behind (a machine busy with renders): the store that
            // finds the cache half its low-water margin past the bound evicts itself, after the
            // eviction under way if there is one, so stores cannot run ahead of eviction.
            case .farPast: keepUp(waiting: true)
            }
        }
        startScan()
        HitLog.startReading(hitsPath, into: index, logger: logger)
        // Not in the background as the scan and the hits are: eviction keeps the bound.
        OwnedThread.start(.upkeep) { [self] in
            while true {
                overBound.withLock { $0 = false }
                keepUp()
                let nextRound = DispatchTime.now() + 0.2
                overBound.wait { isOver in
                    isOver || DispatchTime.now() >= nextRound ? .done(()) : .sleep(until: nextRound)
                }
            }
        }
    }

    /// One round, a few times a second: follow an index another process rebuilt, finish a scan a
    /// dead process left, keep the bounds.
    private func keepUp(waiting: Bool = false) {
        do throws(CacheFailure) {
            try index.followReplacement()
            try index.claimOrphanedScan()
            try evictor.runOnce(waiting: waiting)
            // After eviction: a scan that found the index full asks again once there is room.
            if index.scanRequested { startScan() }
            if failures.end() { logger.notice("cache upkeep works again") }
        } catch {
            // Logged when it starts failing, not a few times a second while it goes on.
            logger.log(level: failures.begin() ? .error : .debug, "cache upkeep failed", metadata: ["error": "\(error)"])
        }
    }

    /// One scan at a time, on a thread of its own; it fills the index when the index asks for
    /// it. Later requests (a rebuild, a scan cut short) are taken up by the upkeep round.
    private func startScan() {
        guard scanning.withLock({ busy in defer { busy = true }; return !busy }) else { return }
        OwnedThread.start(.scan) { [self] in
            System.runInBackground()
            do throws(CacheFailure) {
                try index.checkSlotsAfterStart()
                try scan.run(fill: index.takeScanRequest())
            } catch {
                logger.error("cache scan failed", metadata: ["error": "\(error)"])
            }
            scanning.withLock { $0 = false }
        }
    }
}
