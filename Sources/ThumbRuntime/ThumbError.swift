/// The one error type of thumbd: each case is a stage that can fail, and knows the one sentence
/// a client sees. What libcurl, ImageMagick or libwebp said, and details that would help an
/// attacker, go to the log only (the case's text, `String(describing:)`).
public enum ThumbError: ThumbFailure, Equatable {
    /// The URL could not be parsed, an option is unknown, or an argument is invalid: imgproxy's
    /// "Invalid URL", a 404, so that clients written for imgproxy see what they expect.
    case invalidURL(String)
    /// A request thumbd refuses for its own reasons: a path that is not UTF-8, or that would ask
    /// for another thumbnail at the path nginx stores it at.
    case badRequest(String)
    /// The signature does not match, or what is asked for is not allowed.
    case forbidden(String)
    /// The source's URL, a redirect's, or the address one resolves to is not allowed. The client
    /// learns only that; the detail (which address, which hop) is for the log.
    case sourceNotAllowed(String)
    /// The origin answered 404 or 410.
    case sourceNotFound
    /// The URL's `expires` time has passed.
    case expired
    /// The source is larger than the configured byte limit.
    case sourceTooLarge(limit: Int)
    /// The source is not an image thumbd reads, or not in a format it is told to: thumbd's own
    /// sentence, which the client sees.
    case unprocessable(String)
    /// ImageMagick or libwebp could not decode (or encode) the image; their words are for the log.
    case undecodable(String)
    /// The image is over a limit thumbd keeps (pixels, frames, render time): thumbd's own
    /// sentence, which the client sees.
    case overLimit(String)
    /// The origin failed: connection refused, a 5xx, a broken transfer. libcurl's words and the
    /// origin's status are for the log.
    case originFailed(String)
    /// The origin did not answer in time.
    case originTimeout
    /// More work is queued than thumbd takes on; the client should retry shortly.
    case overloaded
    /// The thumbnail was not ready within the request deadline; it may be by the next request.
    case deadlineExceeded
    /// Anything thumbd itself got wrong: a bug or the machine, never the client.
    case internalFailure(String)

    /// One line for the response body.
    public var publicMessage: String {
        switch self {
        case .invalidURL(let why): "invalid URL: \(why)"
        case .badRequest(let why): "bad request: \(why)"
        case .forbidden(let why): "forbidden: \(why)"
        case .sourceNotAllowed: "forbidden: source is not allowed"
        case .sourceNotFound: "source not found"
        case .expired: "URL expired"
        case .sourceTooLarge(let limit): "source is larger than the limit of \(limit) bytes"
        case .unprocessable(let why): "cannot process source: \(why)"
        case .undecodable: "cannot process source: the image cannot be decoded"
        case .overLimit(let why): "cannot process source: \(why)"
        case .originFailed: "origin failed to deliver the source"
        case .originTimeout: "origin timed out"
        case .overloaded: "too busy, retry shortly"
        case .deadlineExceeded: "thumbnail not ready in time, retry shortly"
        case .internalFailure: "internal error"
        }
    }
}
