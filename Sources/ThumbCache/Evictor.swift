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

    public init(index: CacheIndex, settings: CacheSettings, logger: Logger) {
        self.index = index
        self.settings = settings
        self.logger = logger
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

    /// One round: nothing when within bounds; otherwise keys go as the policy orders them. Returns
    /// what was removed.
    @discardableResult
    public func runOnce() throws(ThumbError) -> (keys: Int, files: Int, bytes: UInt64) {
        index.noteDirectoryBytes(index.files.directoryBytes())
        let usage = index.usage
        let diskBytes = counted(usage)
        guard !usage.scanning, diskBytes > settings.maxBytes || usage.entries > settings.maxEntries else {
            return (0, 0, 0)
        }
        return try index.whileEvicting { () throws(ThumbError) in
            let started = DispatchTime.now()
            let victims = try index.keysToEvict(
                bytes: diskBytes > settings.lowWaterBytes ? diskBytes - settings.lowWaterBytes : 0,
                entries: max(0, usage.entries - settings.lowWaterEntries),
                policy: settings.evictionPolicy, now: index.clock()
            )
            let removed = try index.remove { victims.contains($0.keyHash) }
            index.noteEviction(keys: victims.count, bytes: removed.bytes)
            logger.info("evicted", metadata: [
                "keys": "\(victims.count)", "files": "\(removed.files)", "bytes": "\(removed.bytes)",
                "ms": "\(DispatchTime.now().milliseconds(since: started))",
            ])
            return (victims.count, removed.files, removed.bytes)
        } ?? (0, 0, 0)
    }

    private func counted(_ usage: CacheIndex.Usage) -> UInt64 {
        settings.countsIndexFile ? usage.diskBytes : usage.bytes &+ usage.directoryBytes
    }
}
