import ThumbRequest

extension RequestFailure {
    /// imgproxy's 404 for an invalid URL, so that clients written for it see what they expect.
    public var status: Int {
        switch self {
        case .invalidURL: 404
        case .badRequest: 400
        case .forbidden: 403
        case .expired: 404
        }
    }
}
