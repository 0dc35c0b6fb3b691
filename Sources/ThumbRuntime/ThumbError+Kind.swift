extension ThumbError {
    /// A stable name for each kind of failure: the `type` of a log line and of the error metrics.
    public var kind: String {
        switch self {
        case .invalidURL: "invalid_url"
        case .badRequest: "bad_request"
        case .forbidden: "forbidden"
        case .sourceNotAllowed: "source_not_allowed"
        case .sourceNotFound: "source_not_found"
        case .expired: "expired"
        case .sourceTooLarge: "source_too_large"
        case .unprocessable: "unprocessable"
        case .undecodable: "undecodable"
        case .overLimit: "over_limit"
        case .originFailed: "origin_failed"
        case .originTimeout: "origin_timeout"
        case .overloaded: "overloaded"
        case .deadlineExceeded: "deadline_exceeded"
        case .internalFailure: "internal"
        }
    }
}
