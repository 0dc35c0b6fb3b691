#if canImport(Glibc)
import Glibc
#endif
import ThumbRuntime

/// What stops the pipeline from making thumbnails now, for the health check: the server asks
/// this, and need not know the pools, the cache root or the actors a job passes.
extension ThumbnailPipeline {
    public func healthProblems() -> [String] {
        var problems: [String] = []
        if let why = cacheRootProblem() { problems.append("cannot store thumbnails: \(why)") }
        for pool in [sources.pool, renderPool] where pool.isFull {
            problems.append("the \(pool.name) queue is full")
        }
        // Jobs run as tasks on Swift's cooperative pool: a task must start at once.
        if BlockingBridge.wait(timeout: 2, for: { await Task.yield() }) == nil {
            problems.append("jobs are not being scheduled (no answer from Swift's cooperative pool in 2 s)")
        }
        return problems
    }

    /// A file can be made in the cache root (and is removed again).
    private func cacheRootProblem() -> String? {
        do throws(ThumbError) {
            let temp = try FileSystem.makeTempFile(besides: store.root + "/health")
            unlink(temp.path)
            try temp.close()
            return nil
        } catch {
            return "\(error)"
        }
    }
}
