import Foundation
import ThumbCache
import ThumbJobs
import ThumbRequest
import ThumbRuntime

/// A request as nginx hands it over FastCGI: what thumbd needs of it, copied out of libfcgi's
/// buffers before the next accept reuses them.
public struct IncomingRequest: Sendable {
    public var method: String
    /// The raw path and query, the bytes the client sent (UTF-8 or not): what the signature covers.
    public var requestURI: [UInt8]
    /// The decoded, normalised path nginx's try_files looked up: where the thumbnail goes.
    public var documentURI: String
    /// The client's Accept header, for format negotiation.
    public var accept: String
    /// nginx's `$request_id`, which its access log line for this request carries too.
    public var requestID: String
    /// The client's Authorization header, which nginx passes for the metrics only.
    public var authorization: String

    public init(method: String, requestURI: [UInt8], documentURI: String, accept: String = "", requestID: String = "",
                authorization: String = "") {
        self.method = method
        self.requestURI = requestURI
        self.documentURI = documentURI
        self.accept = accept
        self.requestID = requestID
        self.authorization = authorization
    }
}

/// What goes back to nginx.
public struct OutgoingResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The failure an error answer tells of, for the error metrics.
    public var error: (any ThumbFailure)?

    /// A thumbnail's bytes, for an answer nginx cannot serve from a file (one that could not be
    /// stored), with the headers nginx sends on a hit and the miss's Server-Timing; a URL that
    /// expires may be kept by caches only until it does.
    public static func image(_ bytes: [UInt8], format: ImageFormat, disposition: String? = nil,
                             varies: Bool = false, expiresAt: Int? = nil) -> OutgoingResponse {
        var headers = imageHeaders(format: format, disposition: disposition, expiresAt: expiresAt)
        if varies { headers.append(("Vary", "Accept")) }
        headers.append((ServerTiming.name, ServerTiming.Mark.miss.header))
        return OutgoingResponse(status: 200, headers: headers, body: bytes)
    }

    /// The fallback image, standing in for a source that failed: kept by caches only briefly.
    public static func fallback(_ bytes: [UInt8], format: ImageFormat, _ fallback: FallbackImage, status: Int,
                                varies: Bool) -> OutgoingResponse {
        var headers: [(name: String, value: String)] = [
            ("Content-Type", format.mimeType),
            ("Cache-Control", "public, max-age=\(fallback.maxAge)"),
        ]
        if varies { headers.append(("Vary", "Accept")) }
        headers.append((ServerTiming.name, ServerTiming.Mark.fallback.header))
        return OutgoingResponse(status: status, headers: headers, body: bytes)
    }

    /// A stored thumbnail, which nginx serves from its file (StoredFileRedirect). nginx keeps
    /// this answer's Content-Type, Cache-Control and Content-Disposition; `made` says whether
    /// thumbd rendered it for this request.
    public static func stored(_ path: CachePath, made: Bool, disposition: String? = nil,
                              varies: Bool = false, expiresAt: Int? = nil) -> OutgoingResponse {
        var headers = imageHeaders(format: path.format, disposition: disposition, expiresAt: expiresAt)
        headers.append(("X-Accel-Redirect", StoredFileRedirect.uri(for: path.relative, made: made, varies: varies)))
        return OutgoingResponse(status: 200, headers: headers, body: [])
    }

    private static func imageHeaders(format: ImageFormat, disposition: String?, expiresAt: Int?) -> [(name: String, value: String)] {
        let cacheControl = expiresAt.map { "public, max-age=\(max(0, $0 - Int(Date().timeIntervalSince1970)))" }
            ?? ThumbnailLifetime.cacheControl
        var headers: [(name: String, value: String)] = [
            ("Content-Type", format.mimeType),
            ("Cache-Control", cacheControl),
        ]
        if let disposition { headers.append(("Content-Disposition", disposition)) }
        return headers
    }

    /// One line of text; errors are never cached, by nginx or by a CDN in front of it.
    public static func error(_ error: any ThumbFailure, headers: [(name: String, value: String)] = []) -> OutgoingResponse {
        var response = text(FailureAnswer.status(of: error), error.publicMessage, headers: headers)
        response.error = error
        return response
    }

    public static func text(_ status: Int, _ message: String, headers: [(name: String, value: String)] = []) -> OutgoingResponse {
        OutgoingResponse(status: status, headers: [
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Cache-Control", "no-store"),
        ] + headers, body: Array((message + "\n").utf8))
    }
}
