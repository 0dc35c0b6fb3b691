import ThumbRuntime

extension ThumbError {
    /// A render's failure met where a stage that throws ThumbError renders (the jobs): the same
    /// kind and message.
    public init(_ failure: ImagingFailure) {
        switch failure {
        case .unprocessable(let why): self = .unprocessable(why)
        case .undecodable(let why): self = .undecodable(why)
        case .overLimit(let why): self = .overLimit(why)
        case .internalFailure(let why): self = .internalFailure(why)
        }
    }
}
