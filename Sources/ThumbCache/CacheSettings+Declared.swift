import ThumbRuntime

/// The cache's settings: its bounds, its eviction and the files beside it.
extension CacheSettings: DeclaresSettings {
    public static let settings: [Setting<CacheSettings>] = [
        Setting("CACHE_INDEX",
                .optional(\.indexPath, read: SettingText.absolutePath, show: { $0 }),
                default: .described("<cache root>.index"),
                help: "The cache index file every thumbd on the cache shares."),
        Setting("CACHE_MAX_BYTES",
                .integer(\.maxBytes, 1...(1 << 50)),
                help: "Bytes the cache takes on disk (files' blocks, directories, index); past it thumbnails are evicted.",
                details: "Bytes the cache takes on disk: its files' blocks, its directories and the index; past "
                    + "it thumbnails are evicted, in the order `CACHE_EVICTION_POLICY` says. Without "
                    + "`CACHE_MAX_ENTRIES`, it sizes that too, and must then be 3,454,720 or more."),
        Setting("CACHE_MAX_ENTRIES",
                .integer(\.maxEntries, 1...Self.mostEntries),
                default: .described("CACHE_MAX_BYTES / 8 KiB, 1,000 to 100,000,000"),
                help: "Thumbnail files to keep; sizes the index (about 170 B each).",
                details: "Thumbnail files kept; also sizes the index file and its sketch, about 170 bytes an entry "
                    + "(169 MB a million), reserved on disk at start and counted in `CACHE_MAX_BYTES`. Unset, it is "
                    + "what `CACHE_MAX_BYTES` holds of 8 KiB thumbnails (the median a thumbnail takes on disk), "
                    + "from 1,000 to 100,000,000: an index of at most 5 % of the bound. Set, its index may take up to "
                    + "half of `CACHE_MAX_BYTES`."),
        Setting("CACHE_LOW_WATER",
                .integer(\.lowWaterPercent, 1...99),
                help: "Percent of each bound eviction brings the cache down to."),
        Setting("CACHE_EVICTION_POLICY",
                .choice(\.evictionPolicy, expected: "probation or lru"),
                help: "probation (scan-resistant) or lru: which thumbnails eviction takes first.",
                details: "Which thumbnails eviction takes first. `probation`: a new thumbnail is on probation, "
                    + "which keeps a hundredth of the cache, and nginx's hits keep it there; past that the least "
                    + "recently used on probation meet victims from the least recently used of the rest, the "
                    + "most asked for against the least, and of each pair the one asked for less often lately "
                    + "goes, the other staying, admitted (W-TinyLFU: every "
                    + "request counted in `<index>.uses`, thumbnails long evicted included), so a crawler's single "
                    + "requests replace each other and not what people look at (bench/EVICTION.md). `lru`: least "
                    + "recently used first."),
        Setting("CACHE_HITS_LOG",
                .optional(\.hitsLogPath, read: SettingText.absolutePath, show: { $0 }),
                default: .described("<cache root>.hits.log"),
                help: "The log of hits nginx appends to and thumbd reads."),
    ]
}
