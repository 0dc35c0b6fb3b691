import ThumbRuntime

extension CacheIndex {
    /// What the index counts, read when scraped: the hits and evictions this process counted,
    /// and the files and bytes of every process sharing the index.
    public func registerMetrics(in registry: MetricsRegistry) {
        registry.mirroredCounter("cache_hits_reported", help: """
            Hits nginx reported in its hits log that this thumbd read (sum the instances sharing a cache)
            """) { [self] in Int(clamping: countedHere.hitsReported) }
        registry.mirroredCounter("cache_keys_evicted", help: """
            Thumbnail keys this thumbd evicted from the cache (sum the instances sharing it)
            """) { [self] in Int(clamping: countedHere.keysEvicted) }
        registry.level("cache_entries", help: "Files in the cache index") { [self] in usage.entries }
        registry.level("cache_bytes", help: "Bytes of the files in the cache index") { [self] in Int(clamping: usage.bytes) }
    }
}
