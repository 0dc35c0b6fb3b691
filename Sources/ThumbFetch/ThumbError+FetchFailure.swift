import ThumbRuntime

extension ThumbError {
    /// A fetch's failure met where a stage that throws ThumbError fetches (the jobs): the same
    /// kind and message.
    public init(_ failure: FetchFailure) {
        switch failure {
        case .invalidURL(let why): self = .invalidURL(why)
        case .badRequest(let why): self = .badRequest(why)
        case .forbidden(let why): self = .forbidden(why)
        case .sourceNotAllowed(let why): self = .sourceNotAllowed(why)
        case .sourceNotFound: self = .sourceNotFound
        case .sourceTooLarge(let limit): self = .sourceTooLarge(limit: limit)
        case .originFailed(let why): self = .originFailed(why)
        case .originTimeout: self = .originTimeout
        case .internalFailure(let why): self = .internalFailure(why)
        }
    }
}
