import ThumbFetch

extension FetchFailure {
    /// A source refused or missing is the client's to fix (4xx); an origin that fails is a bad
    /// gateway (502) or a gateway timeout (504).
    public var status: Int {
        switch self {
        case .invalidURL: 404
        case .badRequest: 400
        case .forbidden, .sourceNotAllowed: 403
        case .sourceNotFound: 404
        case .sourceTooLarge: 413
        case .originFailed: 502
        case .originTimeout: 504
        case .internalFailure: 500
        }
    }
}
