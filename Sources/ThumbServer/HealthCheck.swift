#if canImport(Glibc)
import Glibc
#endif
import ThumbJobs
import ThumbRuntime

/// `GET /health` (imgproxy's path), for load balancers: 200 while thumbd can make thumbnails,
/// 503 naming what stops it otherwise.
struct HealthCheck: Sendable {
    static let path = "/health"

    let pipeline: ThumbnailPipeline

    func response() -> OutgoingResponse {
        let problems = problems()
        return problems.isEmpty ? .text(200, "ok") : .text(503, problems.joined(separator: "\n"))
    }

    func problems() -> [String] {
        var problems: [String] = []
        if let why = cacheRootProblem() { problems.append("cannot store thumbnails: \(why)") }
        for pool in [pipeline.sources.pool, pipeline.renderPool] where pool.isFull {
            problems.append("the \(pool.name) queue is full")
        }
        // Jobs run as tasks on Swift's cooperative pool, and every fetch passes the host limiter,
        // an actor there: it must answer at once.
        let hosts = pipeline.sources.hosts
        if BlockingBridge.wait(timeout: 2, for: { await hosts.waitingCount }) == nil {
            problems.append("jobs are not being scheduled (no answer from Swift's cooperative pool in 2 s)")
        }
        return problems
    }

    /// A file can be made in the cache root (and is removed again).
    private func cacheRootProblem() -> String? {
        do throws(ThumbError) {
            let temp = try FileSystem.makeTempFile(besides: pipeline.store.root + "/health")
            unlink(temp.path)
            try FileSystem.close(temp.fd)
            return nil
        } catch {
            return "\(error)"
        }
    }
}
