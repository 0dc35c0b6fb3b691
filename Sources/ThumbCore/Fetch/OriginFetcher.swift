import CCurl

/// Downloads a source with libcurl on the calling thread, within the configured limits and
/// the address policy. One fetcher serves every worker thread; each call has its own handle.
public struct OriginFetcher: Sendable {
    public struct Configuration: Sendable {
        public var maxBytes = 20 * 1024 * 1024
        public var connectTimeoutMilliseconds = 3_000
        /// From the start of the transfer to the first byte of the body.
        public var firstByteTimeoutMilliseconds = 5_000
        public var totalTimeoutMilliseconds = 10_000
        public var maxRedirects = 5
        public var addressPolicy = AddressPolicy()
        public var userAgent = "thumbd/\(ThumbdVersion.current)"
        public var extraHeaders = SourceHeaders()

        public init() {}
    }

    public struct Response: Sendable {
        public let body: [UInt8]
        public let contentType: String?
    }

    public let configuration: Configuration
    private let handles = CurlHandles()

    /// Call once, before any thread fetches: curl_global_init is not thread-safe.
    public static func initializeGlobally() {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// The authority of an http(s) URL, lowercased, for per-host limits.
    public static func host(of url: String) -> String {
        let afterScheme = url.range(of: "://").map { url[$0.upperBound...] } ?? Substring(url)
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return String(authority.split(separator: "@").last ?? authority).lowercased()
    }

    public func fetch(_ url: String) throws(ThumbError) -> Response {
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
            throw .forbidden("only http and https sources are allowed")
        }
        let easy = try handles.take()
        defer { handles.give(easy) }
        let transfer = Transfer(byteLimit: configuration.maxBytes, policy: configuration.addressPolicy,
                                firstByteTimeoutMilliseconds: configuration.firstByteTimeoutMilliseconds)
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        try withExtendedLifetime(transfer) { () throws(ThumbError) in
            easy.reset()
            try easy.set(CURLOPT_URL, url)
            try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
            try easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
            try easy.set(CURLOPT_FOLLOWLOCATION, 1)
            try easy.set(CURLOPT_MAXREDIRS, configuration.maxRedirects)
            try easy.set(CURLOPT_NOSIGNAL, 1)
            try easy.set(CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeoutMilliseconds)
            try easy.set(CURLOPT_TIMEOUT_MS, configuration.totalTimeoutMilliseconds)
            try easy.set(CURLOPT_MAXFILESIZE, configuration.maxBytes)
            try easy.set(CURLOPT_USERAGENT, configuration.userAgent)
            try easy.set(headers: configuration.extraHeaders.headers(for: url))
            try easy.set(writeFunction: transferWriteCallback)
            try easy.set(CURLOPT_WRITEDATA, context)
            try easy.set(openSocketFunction: transferOpenSocketCallback)
            try easy.set(CURLOPT_OPENSOCKETDATA, context)
            try easy.set(CURLOPT_NOPROGRESS, 0)
            try easy.set(progressFunction: transferProgressCallback)
            try easy.set(CURLOPT_XFERINFODATA, context)
            try check(easy.perform(), transfer)
        }
        let status = easy.responseCode
        switch status {
        case 200..<300: return Response(body: transfer.body, contentType: easy.contentType)
        case 404, 410: throw .sourceNotFound
        default: throw .originFailed("origin answered \(status)")
        }
    }

    private func check(_ code: CURLcode, _ transfer: Transfer) throws(ThumbError) {
        switch code {
        case CURLE_OK: return
        case CURLE_OPERATION_TIMEDOUT: throw .originTimeout
        case CURLE_ABORTED_BY_CALLBACK where transfer.missedFirstByte: throw .originTimeout
        case CURLE_FILESIZE_EXCEEDED: throw .sourceTooLarge(limit: configuration.maxBytes)
        case CURLE_WRITE_ERROR where transfer.exceededLimit: throw .sourceTooLarge(limit: configuration.maxBytes)
        case CURLE_UNSUPPORTED_PROTOCOL: throw .forbidden("only http and https sources are allowed")
        case CURLE_TOO_MANY_REDIRECTS: throw .originFailed("more than \(configuration.maxRedirects) redirects")
        case _ where transfer.refusedAddress != nil:
            throw .forbidden("source address \(transfer.refusedAddress!) is not allowed")
        default: throw .originFailed(CurlEasy.describe(code))
        }
    }
}
