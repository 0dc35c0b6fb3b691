import ThumbRequest
import ThumbRuntime

/// Why the cache could not store, link, scan, evict or purge: the disk, the index, or a purge
/// asked for in a way that names nothing.
public enum CacheFailure: ThumbFailure, Equatable {
    /// A purge by path or key that is not well formed.
    case badRequest(String)
    /// A URL to purge that the request stage refuses, in its words.
    case request(RequestFailure)
    /// The disk or the index failed: the machine or thumbd, never the client.
    case internalFailure(String)

    public var kind: String {
        switch self {
        case .badRequest: "bad_request"
        case .request(let failure): failure.kind
        case .internalFailure: "internal"
        }
    }

    public var publicMessage: String {
        switch self {
        case .badRequest(let why): "bad request: \(why)"
        case .request(let failure): failure.publicMessage
        case .internalFailure: "internal error"
        }
    }

    /// A system call's failure, in the cache's words: the same kind and text.
    init(_ failure: SystemFailure) {
        switch failure {
        case .internalFailure(let why): self = .internalFailure(why)
        }
    }
}

/// Runs a runtime call whose failure is a system call's, as the cache's.
func systemCall<T: ~Copyable>(_ body: () throws(SystemFailure) -> T) throws(CacheFailure) -> T {
    do {
        return try body()
    } catch {
        throw CacheFailure(error)
    }
}
