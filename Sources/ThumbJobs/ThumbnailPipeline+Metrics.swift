import ThumbRuntime

extension ThumbnailPipeline {
    /// What the pipeline's parts count or hold, read when scraped: the coalescers' jobs and
    /// joins, the pools' queues, the fetches waiting for their hosts, the originals in memory.
    func registerMetrics() {
        let registry = metrics.registry
        let (coalescer, sources, renderPool) = (coalescer, sources, renderPool)
        registry.mirroredCounter("thumbnail_jobs", help: "Thumbnail jobs started (one per key at a time)") { coalescer.jobsStarted }
        registry.mirroredCounter("thumbnail_requests_joined",
                                 help: "Requests that waited for a thumbnail job another request had started") { coalescer.requestsJoined }
        registry.mirroredCounter("source_jobs", help: "Source jobs started (one per source URL at a time)") {
            sources.coalescer.jobsStarted
        }
        registry.mirroredCounter("source_requests_joined", help: "Thumbnail jobs that waited for a source job another had started") {
            sources.coalescer.requestsJoined
        }
        registry.level("fetch_queue_length", help: "Fetches waiting for a thread of the fetch pool") { sources.pool.queued }
        registry.level("render_queue_length", help: "Renders waiting for a thread of the render pool") { renderPool.queued }
        registry.level("source_memory_bytes", help: "Bytes of recent originals kept in memory") { sources.recent.heldBytes }
        registry.level("fetches_waiting_for_host", help: "Fetches waiting for a slot of their origin host") {
            sources.hosts.waitingCount
        }
    }
}
