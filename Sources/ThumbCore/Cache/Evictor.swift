import Dispatch
import Logging

/// Keeps the cache within its bounds, in the background: when the bytes or the files in the index
/// pass a bound, it removes whole keys (every file of a thumbnail, links and variants alike), least
/// recently used first, down to the low-water mark. nginx's cache manager does the same from its
/// LRU queue; thumbd ranks keys by a scan of the slots instead, since last-use times are written
/// without a lock. One process on the host evicts at a time (a lock on the index's second byte),
/// and never while a start-up scan is still counting what is on disk.
public final class Evictor: Sendable {
    private let index: CacheIndex
    private let settings: CacheSettings
    private let logger: Logger

    public init(index: CacheIndex, settings: CacheSettings, logger: Logger) {
        self.index = index
        self.settings = settings
        self.logger = logger
    }

    /// One round: nothing when within bounds; otherwise the oldest keys go. Returns what was removed.
    @discardableResult
    public func runOnce() throws(ThumbError) -> (keys: Int, files: Int, bytes: UInt64) {
        let usage = index.usage
        guard !usage.scanning else { return (0, 0, 0) }
        if usage.arenaUsed > usage.arenaBytes / 10 * 9, usage.arenaLive < usage.arenaBytes / 2 {
            try index.compactPaths()
        }
        let arenaLimit = usage.arenaBytes / 10 * 9
        guard usage.bytes > settings.maxBytes || usage.entries > settings.maxEntries || usage.arenaLive > arenaLimit else {
            return (0, 0, 0)
        }
        return try index.whileEvicting { () throws(ThumbError) in
            let started = DispatchTime.now()
            var bytes = usage.bytes
            var entries = usage.entries
            var paths = usage.arenaLive
            var victims = Set<UInt64>()
            for key in index.keysByLastUse() {
                if bytes <= settings.lowWaterBytes && entries <= settings.lowWaterEntries && paths <= arenaLimit { break }
                victims.insert(key.keyHash)
                bytes -= min(bytes, key.bytes)
                entries -= key.files
                paths -= key.pathBytes
            }
            let removed = try index.remove { victims.contains($0.keyHash) }
            index.noteEviction(keys: victims.count, bytes: removed.bytes)
            logger.info("evicted", metadata: [
                "keys": "\(victims.count)", "files": "\(removed.files)", "bytes": "\(removed.bytes)",
                "ms": "\(DispatchTime.now().milliseconds(since: started))",
            ])
            return (victims.count, removed.files, removed.bytes)
        } ?? (0, 0, 0)
    }
}
