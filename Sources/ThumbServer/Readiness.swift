import Foundation
import Logging
import Synchronization
import ThumbJobs
import ThumbRuntime

/// Whether this host can make thumbnails now, for `GET /ready`: the checks that touch the disk or
/// wait run on a thread of its own every `interval` seconds, so a request costs a lock, never a file, and
/// a load balancer asking often makes no work. The log says when the host stops being ready, with
/// the detail (paths, errors), and when it is ready again.
public final class Readiness: Sendable {
    private let pipeline: ThumbnailPipeline
    private let interval: TimeInterval
    private let logger: Logger
    private let lastChecked = Mutex<[ThumbnailPipeline.HealthProblem]>([])

    public init(pipeline: ThumbnailPipeline, interval: TimeInterval = 2, logger: Logger) {
        self.pipeline = pipeline
        self.interval = interval
        self.logger = logger
    }

    /// Checks once now (a host is not called ready before it was looked at), then every
    /// `interval` seconds on the thread `thumbd-ready`, for as long as the process runs.
    public func start() {
        check()
        OwnedThread.start(.ready) { [self] in
            while true {
                Thread.sleep(forTimeInterval: interval)
                check()
            }
        }
    }

    /// What stops the host now: the last check's problems, and the queues as they are.
    func problems() -> [ThumbnailPipeline.HealthProblem] {
        lastChecked.withLock { $0 } + pipeline.queueProblems()
    }

    private func check() {
        let found = pipeline.slowHealthProblems()
        let before = lastChecked.withLock { last in
            defer { last = found }
            return last
        }
        guard found != before else { return }
        if found.isEmpty {
            logger.notice("ready again")
        } else {
            logger.warning("not ready", metadata: [
                "problems": "\(found.map { "\($0.summary): \($0.detail)" }.joined(separator: "; "))",
            ])
        }
    }
}
