import ThumbRuntime

/// Why a source could not be had: refused before it was asked for, missing, too large, or its
/// origin failed. libcurl's words, the origin's status and which address or hop was refused are
/// the case's text, for the log; the client learns only the kind.
public enum FetchFailure: ThumbFailure, Equatable {
    /// The source's URL cannot be fetched as written (an S3 bucket or key that is not valid).
    case invalidURL(String)
    /// A source thumbd refuses for its own reasons: a URL libcurl cannot parse, a local path
    /// that is not valid.
    case badRequest(String)
    /// A kind of source that is not enabled, or a local path that leads out of its root.
    case forbidden(String)
    /// The source's URL, a redirect's, or the address one resolves to is not allowed. The client
    /// learns only that; the detail (which address, which hop) is for the log.
    case sourceNotAllowed(String)
    /// The origin answered 404 or 410, or the local file is missing.
    case sourceNotFound
    /// The source is larger than the configured byte limit.
    case sourceTooLarge(limit: Int)
    /// The origin failed: connection refused, a 5xx, a broken transfer. libcurl's words and the
    /// origin's status are for the log.
    case originFailed(String)
    /// The origin did not answer in time.
    case originTimeout
    /// Anything thumbd itself got wrong: a bug or the machine, never the client.
    case internalFailure(String)

    public var kind: String {
        switch self {
        case .invalidURL: "invalid_url"
        case .badRequest: "bad_request"
        case .forbidden: "forbidden"
        case .sourceNotAllowed: "source_not_allowed"
        case .sourceNotFound: "source_not_found"
        case .sourceTooLarge: "source_too_large"
        case .originFailed: "origin_failed"
        case .originTimeout: "origin_timeout"
        case .internalFailure: "internal"
        }
    }

    public var publicMessage: String {
        switch self {
        case .invalidURL(let why): "invalid URL: \(why)"
        case .badRequest(let why): "bad request: \(why)"
        case .forbidden(let why): "forbidden: \(why)"
        case .sourceNotAllowed: "forbidden: source is not allowed"
        case .sourceNotFound: "source not found"
        case .sourceTooLarge(let limit): "source is larger than the limit of \(limit) bytes"
        case .originFailed: "origin failed to deliver the source"
        case .originTimeout: "origin timed out"
        case .internalFailure: "internal error"
        }
    }
}
