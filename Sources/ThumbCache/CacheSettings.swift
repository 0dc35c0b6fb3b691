/// The cache's bounds and the files beside it.
public struct CacheSettings: Sendable {
    /// Bytes the cache may take on disk (its files' blocks, its directories and the index); past
    /// it the least recently used thumbnails go.
    public var maxBytes: UInt64 = 10 << 30
    /// Files the cache may hold; also sizes the index file (`indexBytes`, 161 MB a million).
    public var maxEntries = 1_000_000
    /// Eviction removes down to this percentage of each bound, so it runs in batches.
    public var lowWaterPercent = 90
    /// Which thumbnails eviction takes first.
    public var evictionPolicy = EvictionPolicy.probation
    /// Whether the index file counts towards `maxBytes`. Only a replayed trace leaves it out: its
    /// index is a scratch file, and its bound is the thumbnails' bytes.
    var countsIndexFile = true
    /// The index file; nil: beside the cache root, `<root>.index`.
    public var indexPath: String?
    /// The log nginx appends hits to (`access_log ... thumbd_hits buffer=64k flush=1s`), which
    /// thumbd reads and empties; nil: `<root>.hits.log`.
    public var hitsLogPath: String?

    public init() {}

    public func indexPath(root: String) -> String { indexPath ?? root + ".index" }
    public func hitsLogPath(root: String) -> String { hitsLogPath ?? root + ".hits.log" }

    /// The index file's size for `maxEntries`, all of it reserved on disk when it is made.
    public var indexBytes: Int { IndexLayout(maxEntries: maxEntries).fileSize }

    /// What eviction brings the cache down to.
    public var lowWaterBytes: UInt64 { maxBytes / 100 * UInt64(lowWaterPercent) }
    public var lowWaterEntries: Int { maxEntries * lowWaterPercent / 100 }
}
