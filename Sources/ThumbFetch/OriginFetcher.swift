import CCurl
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import ThumbRequest
import ThumbRuntime

/// Downloads a source with libcurl on the calling thread, within the configured limits and
/// the address policy. One fetcher serves every worker thread; each call has its own handle.
public struct OriginFetcher: Sendable {
    public struct Configuration: Sendable {
        public var maxBytes = 20 * 1024 * 1024
        public var connectTimeoutMilliseconds = 3_000
        /// From the start of the transfer to the first byte of the body.
        public var firstByteTimeoutMilliseconds = 5_000
        public var totalTimeoutMilliseconds = 5_000
        public var maxRedirects = 10
        public var addressPolicy = AddressPolicy()
        public var userAgent = "thumbd/\(ThumbdVersion.current)"
        public var extraHeaders = SourceHeaders()
        /// The URL prefixes a source and every redirect it takes must start with (ALLOWED_SOURCES).
        public var allowedSources = SourceAllowList(prefixes: [])
        /// An HTTP proxy every fetch goes through (never one from the environment). The guard then
        /// resolves each hop's host itself, checks it, and has the proxy tunnel to that address.
        public var proxy: String?
        /// How `s3://` sources are read; off by default.
        public var s3 = S3Settings()

        public init() {}
    }

    public struct Response: Sendable {
        public let body: [UInt8]
        public let contentType: String?

        package init(body: [UInt8], contentType: String?) {
            self.body = body
            self.contentType = contentType
        }
    }

    public let configuration: Configuration
    /// The allowed sources, address policy and extra headers, as the last reload left them; the
    /// configuration's are where they started.
    package let sourceRules: Reloadable<SourceRules>
    private let handles = CurlHandles()

    /// Call once, before any thread fetches: curl_global_init is not thread-safe.
    public static func initializeGlobally() {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }

    public init(configuration: Configuration) {
        self.configuration = configuration
        sourceRules = Reloadable(SourceRules(configuration))
    }

    /// The authority of an http(s) URL, lowercased, for per-host limits.
    public static func host(of url: String) -> String {
        let afterScheme = url.range(of: "://").map { url[$0.upperBound...] } ?? Substring(url)
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return String(authority.split(separator: "@").last ?? authority).lowercased()
    }

    /// Follows redirects itself, one transfer per hop on the same handle (so kept-alive
    /// connections are reused), so that each hop gets the extra headers of its own URL (a token
    /// meant for one origin never follows a redirect to another) and is held to the allowed
    /// sources before anything connects to it.
    public func fetch(_ url: String) throws(FetchFailure) -> Response {
        if S3Object.isS3(url) { return try fetchS3(url) }
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
            throw .forbidden("only http and https sources are allowed")
        }
        let easy = try handles.take()
        defer { handles.give(easy) }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(configuration.totalTimeoutMilliseconds) * 1_000_000
        let rules = sourceRules.current
        var url = URLEscaping.escaped(url)
        for _ in 0...configuration.maxRedirects {
            let remaining = Int((Int64(deadline) - Int64(DispatchTime.now().uptimeNanoseconds)) / 1_000_000)
            guard remaining > 0 else { throw .originTimeout }
            let transfer = try perform(url, headers: rules.headers.headers(for: url), guarded: true, rules: rules,
                                       on: easy, timeoutMilliseconds: remaining)
            let status = easy.responseCode
            if Self.redirectStatuses.contains(status), let next = easy.redirectURL {
                guard rules.allowedSources.allows(next) else {
                    throw .sourceNotAllowed("\(url) redirects to \(next), which is not in the allowed sources")
                }
                url = URLEscaping.escaped(next)
                continue
            }
            switch status {
            case 200..<300: return Response(body: transfer.body, contentType: easy.contentType)
            case 404, 410: throw .sourceNotFound
            default: throw .originFailed("origin answered \(status)")
            }
        }
        throw .originFailed("more than \(configuration.maxRedirects) redirects")
    }

    /// One signed GET, no redirect followed: S3 answers a bucket in another region with a 301 that
    /// a request signed for this region could not follow anyway. Temporary credentials S3 calls
    /// expired (a clock that drifted, a role's session cut short) are renewed and the GET sent once more.
    private func fetchS3(_ url: String) throws(FetchFailure) -> Response {
        let rules = sourceRules.current
        let object = try S3Object(url: url)
        let easy = try handles.take()
        defer { handles.give(easy) }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(configuration.totalTimeoutMilliseconds) * 1_000_000
        for attempt in 1...2 {
            let remaining = Int((Int64(deadline) - Int64(DispatchTime.now().uptimeNanoseconds)) / 1_000_000)
            guard remaining > 0 else { throw .originTimeout }
            let request = try rules.s3.request(for: object, at: time(nil))
            let transfer = try perform(request.url, headers: request.headers, guarded: !request.trusted, rules: rules,
                                       on: easy, timeoutMilliseconds: remaining)
            let status = easy.responseCode
            guard !(200..<300).contains(status) else { return Response(body: transfer.body, contentType: easy.contentType) }
            let code = S3XMLText.value(of: "Code", in: transfer.body).map { String($0.prefix(64)) }
            switch status {
            case 404: throw .sourceNotFound
            case _ where (status == 400 || status == 403) && code == "ExpiredToken" && attempt == 1:
                rules.s3.credentials?.discard()
                continue
            case 301, 307:
                let region = easy.headerValues("x-amz-bucket-region").first ?? "another region"
                throw .originFailed("S3 bucket of \(url) is in \(region), not \(rules.s3.region): set S3_REGION or "
                    + "S3_ENDPOINT")
            case 403 where code == "AccessDenied":
                throw .originFailed("S3 answered 403 AccessDenied for \(url): no s3:GetObject on it, or it is missing "
                    + "and s3:ListBucket is not granted (S3 then hides a missing key behind 403)")
            default: throw .originFailed("S3 answered \(status) \(code ?? "with no error code") for \(url)")
            }
        }
        throw .originFailed("S3 answered ExpiredToken for \(url) to renewed credentials too")
    }

    /// The answers libcurl itself would follow.
    private static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// - Parameter guarded: false for the operator's own S3 endpoint, which the address policy
    ///   does not judge.
    private func perform(_ url: String, headers: [String], guarded: Bool, rules: SourceRules, on easy: CurlEasy,
                         timeoutMilliseconds: Int) throws(FetchFailure) -> Transfer {
        // Through a proxy every socket goes to the proxy: the origin's address is checked here instead.
        let origin = try configuration.proxy.flatMap { _ throws(FetchFailure) in
            guarded ? try OriginAddress(of: url, policy: rules.addressPolicy) : nil
        }
        let transfer = Transfer(easy: easy, byteLimit: configuration.maxBytes,
                                policy: origin == nil && guarded ? rules.addressPolicy : nil,
                                firstByteTimeoutMilliseconds: configuration.firstByteTimeoutMilliseconds)
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        try withExtendedLifetime(transfer) { () throws(FetchFailure) in
            easy.reset()
            try easy.set(CURLOPT_URL, url)
            try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
            // Never a proxy from the environment (http_proxy, HTTPS_PROXY, ALL_PROXY): the address
            // guard would see the proxy's address instead of the origin's.
            try easy.set(CURLOPT_PROXY, configuration.proxy ?? "")
            if let origin {
                // CONNECT to the checked address, for http sources too, so the proxy resolves nothing.
                try easy.set(CURLOPT_HTTPPROXYTUNNEL, 1)
                try easy.set(CURLOPT_CONNECT_TO, list: [origin.connectTo])
            }
            try easy.set(CURLOPT_NOSIGNAL, 1)
            try easy.set(CURLOPT_CONNECTTIMEOUT_MS, min(configuration.connectTimeoutMilliseconds, timeoutMilliseconds))
            try easy.set(CURLOPT_TIMEOUT_MS, timeoutMilliseconds)
            try easy.set(CURLOPT_MAXFILESIZE, configuration.maxBytes)
            try easy.set(CURLOPT_USERAGENT, configuration.userAgent)
            try easy.set(headers: headers)
            try easy.set(writeFunction: transferWriteCallback)
            try easy.set(CURLOPT_WRITEDATA, context)
            try easy.set(openSocketFunction: transferOpenSocketCallback)
            try easy.set(CURLOPT_OPENSOCKETDATA, context)
            try easy.set(CURLOPT_NOPROGRESS, 0)
            try easy.set(progressFunction: transferProgressCallback)
            try easy.set(CURLOPT_XFERINFODATA, context)
            try check(easy.perform(), transfer, url: url)
        }
        return transfer
    }

    private func check(_ code: CURLcode, _ transfer: Transfer, url: String) throws(FetchFailure) {
        switch code {
        case CURLE_OK: return
        case CURLE_OPERATION_TIMEDOUT: throw .originTimeout
        case CURLE_ABORTED_BY_CALLBACK where transfer.missedFirstByte: throw .originTimeout
        case CURLE_FILESIZE_EXCEEDED: throw .sourceTooLarge(limit: configuration.maxBytes)
        case CURLE_WRITE_ERROR where transfer.exceededLimit: throw .sourceTooLarge(limit: configuration.maxBytes)
        case CURLE_UNSUPPORTED_PROTOCOL: throw .forbidden("only http and https sources are allowed")
        case _ where transfer.refusedAddress != nil:
            throw .sourceNotAllowed("\(url) connects to \(transfer.refusedAddress!), which is not allowed")
        default: throw .originFailed(CurlEasy.describe(code))
        }
    }
}
