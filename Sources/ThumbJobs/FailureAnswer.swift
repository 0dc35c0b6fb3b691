import Logging
import ThumbRuntime

/// How a failure is answered and logged, which the server alone decides, at the edge: the jobs
/// are given it to log their line and to answer a fallback image with the status of the failure
/// it stands in for.
public struct FailureAnswer: Sendable {
    /// The HTTP status a client gets.
    public let status: Int
    /// How loud its log line is.
    public let logLevel: Logger.Level

    public init(status: Int, logLevel: Logger.Level) {
        self.status = status
        self.logLevel = logLevel
    }
}
