#if canImport(Glibc)
import Glibc
#endif
import ThumbRuntime

/// What stops the pipeline from making thumbnails now, for the readiness check: the server asks
/// this, and need not know the pools, the cache root or the actors a job passes.
extension ThumbnailPipeline {
    /// One reason the host is not ready: what a load balancer may read, and what the log gets.
    public struct HealthProblem: Sendable, Equatable {
        /// Terse, and naming no path: `/ready` is public.
        public let summary: String
        public let detail: String
    }

    /// The checks that cost a file or a wait (a file made and removed in the cache root; a task
    /// on Swift's pool), for a thread of thumbd's own to run now and then, never per request.
    /// Blocks up to 2 s.
    public func slowHealthProblems() -> [HealthProblem] {
        var problems: [HealthProblem] = []
        if let why = cacheRootProblem() {
            problems.append(HealthProblem(summary: "cannot store thumbnails", detail: why))
        }
        // Jobs run as tasks on Swift's cooperative pool: a task must start at once.
        if BlockingBridge.wait(timeout: 2, for: { await Task.yield() }) == nil {
            problems.append(HealthProblem(summary: "jobs are not being scheduled",
                                          detail: "no answer from Swift's cooperative pool in 2 s"))
        }
        return problems
    }

    /// The checks that cost nothing, for every request: the queues, which fill and empty in a moment.
    public func queueProblems() -> [HealthProblem] {
        [sources.pool, renderPool].filter(\.isFull).map {
            HealthProblem(summary: "the \($0.name) queue is full",
                          detail: "\($0.name) queue at its REQUESTS_QUEUE_SIZE")
        }
    }

    /// A file can be made in the cache root (and is removed again).
    private func cacheRootProblem() -> String? {
        do throws(SystemFailure) {
            let temp = try FileSystem.makeTempFile(besides: store.root + "/health")
            unlink(temp.path)
            try temp.close()
            return nil
        } catch {
            return "\(error)"
        }
    }
}
