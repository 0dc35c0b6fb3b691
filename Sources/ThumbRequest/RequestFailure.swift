import ThumbRuntime

/// Why a request's URL is refused before anything is fetched: its grammar, its signature, its
/// path, its `expires` time.
public enum RequestFailure: ThumbFailure, Equatable {
    /// The URL could not be parsed, an option is unknown, or an argument is invalid: imgproxy's
    /// "Invalid URL", so that clients written for imgproxy see what they expect.
    case invalidURL(String)
    /// A request thumbd refuses for its own reasons: a path that is not UTF-8, or that would ask
    /// for another thumbnail at the path nginx stores it at.
    case badRequest(String)
    /// The signature does not match, or what is asked for is not allowed.
    case forbidden(String)
    /// The URL's `expires` time has passed.
    case expired

    public var kind: String {
        switch self {
        case .invalidURL: "invalid_url"
        case .badRequest: "bad_request"
        case .forbidden: "forbidden"
        case .expired: "expired"
        }
    }

    public var publicMessage: String {
        switch self {
        case .invalidURL(let why): "invalid URL: \(why)"
        case .badRequest(let why): "bad request: \(why)"
        case .forbidden(let why): "forbidden: \(why)"
        case .expired: "URL expired"
        }
    }

    /// The message without its kind's prefix.
    var detail: String {
        switch self {
        case .invalidURL(let why), .badRequest(let why), .forbidden(let why): why
        case .expired: publicMessage
        }
    }
}
