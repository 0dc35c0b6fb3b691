import ThumbRuntime

/// The server's own failure of a request: the job did not answer in time.
public enum ServerFailure: ThumbFailure, Equatable {
    /// The thumbnail was not ready within the request deadline; it may be by the next request.
    case deadlineExceeded

    public var kind: String { "deadline_exceeded" }

    public var publicMessage: String { "thumbnail not ready in time, retry shortly" }
}
