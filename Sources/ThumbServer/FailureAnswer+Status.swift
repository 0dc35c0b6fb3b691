import Logging
import ThumbFetch
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
        } else if case .sourceNotAllowed? = failure as? FetchFailure {
            .notice
        } else if case .sourceNotAllowed? = failure as? ThumbError {
            .notice
        } else {
            .info
        }
        self.init(status: status, logLevel: level)
    }

    /// Each stage's failures have theirs; a failure of a kind the server does not know is thumbd's
    /// own mistake.
    public static func status(of failure: any ThumbFailure) -> Int {
        switch failure {
        case let failure as RequestFailure: failure.status
        case let failure as FetchFailure: failure.status
        case let failure as ThumbError: failure.status
        default: 500
        }
    }
}
