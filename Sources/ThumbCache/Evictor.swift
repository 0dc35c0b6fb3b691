import Dispatch
import Logging
import ThumbRuntime

/// Keeps the cache within its bounds, in the background: when what the cache takes on disk (its
/// files' blocks, its directories and the index) or the files in the index pass a bound, it removes
/// whole keys (every file of a thumbnail, links and variants alike), in the order of its policy
/// (EvictionPolicy), down to the low-water mark. nginx's cache manager takes the least recently
/// used from its LRU queue; thumbd ranks by the slots' creation and last-use times instead, since
/// hits are written without a lock. One process on the host evicts at a time (a lock on the
/// index's second byte), and never while a start-up scan is still counting what is on disk.
public final class Evictor: Sendable {
    private let index: CacheIndex
    private let settings: CacheSettings
    private let logger: Logger
    /// Keys one batch gathers at most: what eviction holds in memory is bounded by it.
    private let keysPerBatch: Int

    public convenience init(index: CacheIndex, settings: CacheSettings, logger: Logger) {
        self.init(index: index, settings: settings, logger: logger, keysPerBatch: CacheIndex.keysPerBatch)
    }

    init(index: CacheIndex, settings: CacheSettings, logger: Logger, keysPerBatch: Int) {
        self.index = index
        self.settings = settings
        self.logger = logger
        self.keysPerBatch = keysPerBatch
    }

    public enum Overrun {
        case within
        case past
        /// Past a bound by half the margin eviction leaves below it, or more.
        case farPast
    }

    /// How far past its bounds the cache is, as last measured: cheap, read from the index's header.
    public var overrun: Overrun {
        let usage = index.usage
        let diskBytes = counted(usage)
        let margin = (settings.maxBytes - settings.lowWaterBytes) / 2
        let entriesMargin = (settings.maxEntries - settings.lowWaterEntries) / 2
        if diskBytes > settings.maxBytes + margin || usage.entries > settings.maxEntries + entriesMargin { return .farPast }
        return diskBytes > settings.maxBytes || usage.entries > settings.maxEntries ? .past : .within
    }

    /// Nothing when within bounds; otherwise keys go as the policy orders them, down to the
    /// low-water mark, in batches of at most `keysPerBatch` keys. A plan that leaves the need
    /// unmet (a key kept for a newer file, stores meanwhile) is followed by another, a few at most.
    /// Returns what was removed, and in how many batches. With `waiting`, an eviction this process
    /// has under way is waited for, then the bounds looked at again.
    @discardableResult
    public func runOnce(waiting: Bool = false) throws(CacheFailure) -> (keys: Int, files: Int, bytes: UInt64, batches: Int) {
        index.noteDirectoryBytes(index.files.directoryBytes())
        guard isPastABound(index.usage) else { return (0, 0, 0, 0) }
        return try index.whileEvicting(waiting: waiting) { () throws(CacheFailure) in
            // An eviction waited for may have done the work.
            guard isPastABound(index.usage) else { return (0, 0, 0, 0) }
            let started = DispatchTime.now()
            var removed = (keys: 0, files: 0, bytes: UInt64(0), batches: 0)
            for _ in 0..<4 {
                let usage = index.usage
                let diskBytes = counted(usage)
                let need = (bytes: diskBytes > settings.lowWaterBytes ? diskBytes - settings.lowWaterBytes : 0,
                            entries: max(0, usage.entries - settings.lowWaterEntries))
                guard need.bytes > 0 || need.entries > 0 || removed.batches == 0 else { break }
                let plan = try index.evict(bytes: need.bytes, entries: need.entries, policy: settings.evictionPolicy,
                                           now: index.clock(), limit: keysPerBatch)
                removed = (removed.keys + plan.keys, removed.files + plan.files, removed.bytes &+ plan.bytes,
                           removed.batches + plan.batches)
                if plan.files == 0 { break }
            }
            logger.info("evicted", metadata: [
                "keys": "\(removed.keys)", "files": "\(removed.files)", "bytes": "\(removed.bytes)",
                "batches": "\(removed.batches)", "ms": "\(DispatchTime.now().milliseconds(since: started))",
            ])
            return removed
        } ?? (0, 0, 0, 0)
    }

    private func isPastABound(_ usage: CacheIndex.Usage) -> Bool {
        !usage.scanning && (counted(usage) > settings.maxBytes || usage.entries > settings.maxEntries)
    }

    private func counted(_ usage: CacheIndex.Usage) -> UInt64 {
        settings.countsIndexFile ? usage.diskBytes : usage.bytes &+ usage.directoryBytes
    }
}
