import Logging
import ThumbCache
import ThumbFetch
import ThumbImaging
import ThumbJobs
import ThumbRequest
import ThumbRuntime

extension FailureAnswer {
    /// A failure of any stage: its status, and a log line as loud as it is worth. thumbd's own
    /// failures and the origins' are worth a look, a refused source may be an attack, a client's
    /// mistake is routine.
    public init(for failure: any ThumbFailure) {
        let status = Self.status(of: failure)
        let level: Logger.Level = if status >= 500 {
            .warning
        } else if case .sourceNotAllowed? = Self.stageFailure(failure) as? FetchFailure {
            .notice
        } else {
            .info
        }
        self.init(status: status, logLevel: level)
    }

    /// Each stage's failures have theirs; a job's are those of the stage that failed.
    public static func status(of failure: any ThumbFailure) -> Int {
        switch stageFailure(failure) {
        case let failure as RequestFailure: failure.status
        case let failure as FetchFailure: failure.status
        case let failure as ImagingFailure: failure.status
        case let failure as CacheFailure: failure.status
        case JobFailure.overloaded: 503
        case let failure as ServerFailure: failure.status
        case is SystemFailure: 500
        // A failure of a kind the server does not know is thumbd's own mistake.
        default: 500
        }
    }

    private static func stageFailure(_ failure: any ThumbFailure) -> any ThumbFailure {
        (failure as? JobFailure)?.stageFailure ?? failure
    }
}
