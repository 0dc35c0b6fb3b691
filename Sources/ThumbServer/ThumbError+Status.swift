import ThumbRuntime

extension ThumbError {
    /// The HTTP status a client gets for the failure: decided here, at the edge, and nowhere below.
    public var status: Int {
        switch self {
        case .invalidURL: 404
        case .badRequest: 400
        case .forbidden, .sourceNotAllowed: 403
        case .sourceNotFound, .expired: 404
        case .sourceTooLarge: 413
        case .unprocessable, .undecodable, .overLimit: 422
        case .originFailed: 502
        case .originTimeout: 504
        case .overloaded: 503
        case .deadlineExceeded: 504
        case .internalFailure: 500
        }
    }
}
