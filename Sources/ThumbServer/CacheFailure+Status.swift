import ThumbCache

extension CacheFailure {
    /// A purge asked for in a way that names nothing is the client's mistake; the disk's failure is thumbd's.
    public var status: Int {
        switch self {
        case .badRequest: 400
        case .request(let failure): failure.status
        case .internalFailure: 500
        }
    }
}
