import ThumbRuntime

/// What the pipeline tells a scrape: the counters kept elsewhere (the coalescers, the
/// cache index) and the levels read now, in Prometheus' text format. The server asks for this;
/// it need not know where each figure is kept.
extension ThumbnailPipeline {
    public func scrapeMetrics() -> String {
        let cache = store.index.usage
        let countedHere = store.index.countedHere
        let mirrored: [Metrics.Mirrored: Int] = [
            .cacheHitsReported: Int(clamping: countedHere.hitsReported), .cacheKeysEvicted: Int(clamping: countedHere.keysEvicted),
            .thumbnailJobs: coalescer.jobsStarted, .thumbnailRequestsJoined: coalescer.requestsJoined,
            .sourceJobs: sources.coalescer.jobsStarted, .sourceRequestsJoined: sources.coalescer.requestsJoined,
        ]
        let levels: [Metrics.Level: Int] = [
            .cacheEntries: cache.entries, .cacheBytes: Int(clamping: cache.bytes),
            .fetchQueueLength: sources.pool.queued, .renderQueueLength: renderPool.queued,
            .fetchesWaitingForHost: sources.hosts.waitingCount, .sourceMemoryBytes: sources.recent.heldBytes,
        ]
        return metrics.scrape(mirrored: mirrored, levels: levels)
    }
}
