import ThumbRuntime

extension ThumbError {
    /// A request's failure met where a stage that throws ThumbError parses a URL (the cache's
    /// purge): the same kind and message.
    public init(_ failure: RequestFailure) {
        switch failure {
        case .invalidURL(let why): self = .invalidURL(why)
        case .badRequest(let why): self = .badRequest(why)
        case .forbidden(let why): self = .forbidden(why)
        case .expired: self = .expired
        }
    }
}
