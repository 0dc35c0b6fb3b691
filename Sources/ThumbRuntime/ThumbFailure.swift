/// A stage's failure, with what its log line and a client's answer need. Each stage declares
/// the failures it can have; the server alone turns them into HTTP statuses, at the edge. What
/// libcurl, ImageMagick or libwebp said, and details that would help an attacker, go to the log
/// only (`String(describing:)`).
public protocol ThumbFailure: Error, Sendable {
    /// A stable name for the kind of failure: the `type` of a log line and of the error metrics.
    var kind: String { get }
    /// The one line a client sees.
    var publicMessage: String { get }
}
