import ThumbRuntime

/// The cache's bounds and the files beside it.
public struct CacheSettings: Sendable {
    /// Bytes the cache may take on disk (its files' blocks, its directories and the index); past
    /// it the least recently used thumbnails go.
    public var maxBytes: UInt64 = 10 << 30
    /// Files the cache may hold; also sizes the index file (`indexBytes`). Unless it is set
    /// (CACHE_MAX_ENTRIES), what `maxBytes` holds of typical thumbnails (`entries(holding:)`).
    public var maxEntries: Int {
        get { setMaxEntries ?? Self.entries(holding: maxBytes) }
        set { setMaxEntries = newValue }
    }
    /// `maxEntries` as set, nil when it follows `maxBytes`.
    public private(set) var setMaxEntries: Int?
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

    /// The cache root when none is given (CACHE_ROOT): the site `thumbd nginx-config` writes
    /// serves it too.
    public static let defaultRoot = "/var/cache/thumbd"

    public func indexPath(root: String) -> String { indexPath ?? root + ".index" }
    public func hitsLogPath(root: String) -> String { hitsLogPath ?? root + ".hits.log" }

    // MARK: Sizing

    /// What a thumbnail typically takes on disk: the median of the blocks the bench photos'
    /// thumbnails take (150, 300 and 600 pixels wide, JPEG and WebP; the quartiles are 4, 8 and
    /// 20 KiB). A cache of smaller ones reaches `maxEntries` before `maxBytes`.
    public static let typicalThumbnailBytes: UInt64 = 8 << 10
    /// The fewest entries `maxBytes` alone gives, so a small cache still holds a useful number.
    public static let fewestEntries = 1_000
    /// The most entries the index takes, set or not.
    public static let mostEntries = 100_000_000
    /// The index's share of `maxBytes` when `maxEntries` follows it, in percent at most; one
    /// that is set may take up to half of `maxBytes`.
    public static let followingIndexPercent: UInt64 = 5

    /// The entries `maxBytes` holds of typical thumbnails, from `fewestEntries` to `mostEntries`.
    public static func entries(holding maxBytes: UInt64) -> Int {
        Int(min(max(maxBytes / typicalThumbnailBytes, UInt64(fewestEntries)), UInt64(mostEntries)))
    }

    /// The bytes the index file and its sketch (`<index>.uses`) take for `maxEntries`, all of
    /// them reserved on disk when they are made and counted in `maxBytes`: about 170 an entry.
    public var indexBytes: Int { Self.indexBytes(entries: maxEntries) }

    static func indexBytes(entries: Int) -> Int {
        let layout = IndexLayout(maxEntries: entries)
        return layout.fileSize + FrequencySketch.fileSize(capacity: layout.capacity)
    }

    /// The index counts towards the bound: one that takes half of it leaves no room for
    /// thumbnails, and one `maxBytes` sizes alone takes at most `followingIndexPercent` of it.
    public func validate() -> [SettingProblem] {
        let index = UInt64(indexBytes)
        if let set = setMaxEntries {
            guard index > maxBytes / 2 else { return [] }
            return [SettingProblem("CACHE_MAX_ENTRIES=\(set) makes an index of \(index) bytes, more than half of "
                + "CACHE_MAX_BYTES=\(maxBytes), which it counts towards: raise CACHE_MAX_BYTES or lower CACHE_MAX_ENTRIES")]
        }
        guard index > maxBytes / 100 * Self.followingIndexPercent else { return [] }
        let smallest = UInt64(Self.indexBytes(entries: Self.fewestEntries)) * 100 / Self.followingIndexPercent
        return [SettingProblem("CACHE_MAX_BYTES=\(maxBytes) is too small to size the cache alone: its "
            + "\(maxEntries) entries (the fewest) make an index of \(index) bytes, more than "
            + "\(Self.followingIndexPercent) % of it: give CACHE_MAX_BYTES=\(smallest) or more, or CACHE_MAX_ENTRIES as well "
            + "(its index at most half of CACHE_MAX_BYTES)")]
    }

    /// What eviction brings the cache down to.
    public var lowWaterBytes: UInt64 { maxBytes / 100 * UInt64(lowWaterPercent) }
    public var lowWaterEntries: Int { maxEntries * lowWaterPercent / 100 }
}
