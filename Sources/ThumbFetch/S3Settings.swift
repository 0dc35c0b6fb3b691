#if canImport(Glibc)
import Glibc
#endif
import ThumbRuntime

/// How `s3://` sources are read (imgproxy's USE_S3, S3_REGION, S3_ENDPOINT,
/// S3_ENDPOINT_USE_PATH_STYLE, S3_ALLOWED_BUCKETS, S3_DENIED_BUCKETS) and the credentials they are
/// signed with.
public struct S3Settings: Sendable {
    /// Off unless asked for: an `s3://` source is then answered with `notEnabled`.
    public var enabled = false
    public var region = "us-east-1"
    /// `http(s)://host[:port]` of an S3-compatible store; nil: AWS's endpoint for the region. The
    /// operator's endpoint is trusted by configuration: the source address policy does not apply
    /// to it (a store on the same host or network is the usual case), and to nothing else.
    public var endpoint: String?
    /// With an endpoint, the bucket goes in the path (imgproxy's default) rather than in the host.
    public var usePathStyle = true
    /// Empty: every bucket not denied.
    public var allowedBuckets: [String] = []
    public var deniedBuckets: [String] = []
    /// The credentials given by name (S3_ACCESS_KEY_ID, ...), before the AWS credential chain's.
    public var accessKeyID: String?
    public var secretAccessKey: String?
    public var sessionToken: String?
    /// Set when S3 is on: the settings refuse to load when no link of the chain has any.
    public var credentials: (any S3CredentialProvider)?

    public static let notEnabled = FetchFailure.forbidden("S3 sources are not enabled (USE_S3)")

    public init() {}

    /// A GET of `object` signed at `now` (seconds since the epoch), or why the object may not be read.
    public func request(for object: S3Object, at now: time_t) throws(FetchFailure) -> S3Request {
        guard enabled else { throw Self.notEnabled }
        guard allowedBuckets.isEmpty || allowedBuckets.contains(object.bucket), !deniedBuckets.contains(object.bucket) else {
            throw .sourceNotAllowed("S3 bucket \(object.bucket) is not allowed (S3_ALLOWED_BUCKETS, S3_DENIED_BUCKETS)")
        }
        guard let provider = credentials else {
            throw .internalFailure("no S3 credentials were given")
        }
        let credentials = try provider.credentials()
        let (scheme, authority, pathStyle) = location(of: object.bucket)
        let host = pathStyle ? authority : "\(object.bucket).\(authority)"
        let key = SigV4Signer.uriEncode(object.key, keepingSlash: true)
        let path = pathStyle ? "/\(object.bucket)/\(key)" : "/\(key)"
        let query = object.version.map { [("versionId", $0)] } ?? []
        let queryText = query.map { "?\($0.0)=\(SigV4Signer.uriEncode($0.1, keepingSlash: false))" }.first ?? ""
        let amzDate = Self.amzDate(now)
        var headers = [
            ("Host", host), ("x-amz-content-sha256", SigV4Signer.emptyPayloadHash), ("x-amz-date", amzDate),
        ]
        if let token = credentials.sessionToken { headers.append(("x-amz-security-token", token)) }
        let authorization = SigV4Signer(region: region).authorization(
            method: "GET", path: path, query: query, headers: headers, payloadHash: SigV4Signer.emptyPayloadHash,
            amzDate: amzDate, credentials: credentials)
        headers.append(("Authorization", authorization))
        return S3Request(url: "\(scheme)://\(host)\(path)\(queryText)", headers: headers.map { "\($0.0): \($0.1)" },
                         trusted: endpoint != nil)
    }

    /// The scheme and authority requests go to, and whether the bucket goes in the path. AWS's own
    /// endpoint takes the bucket in the host, but for names with dots, which its certificate
    /// (`*.s3.region.amazonaws.com`) does not cover.
    private func location(of bucket: String) -> (scheme: String, authority: String, pathStyle: Bool) {
        guard let endpoint else {
            return ("https", "s3.\(region).amazonaws.com", bucket.contains("."))
        }
        let (scheme, rest) = endpoint.hasPrefix("http://") ? ("http", endpoint.dropFirst(7))
            : ("https", endpoint.hasPrefix("https://") ? endpoint.dropFirst(8) : Substring(endpoint))
        var authority = rest.prefix { $0 != "/" }
        // curl leaves a default port out of Host; the signature must name the same host.
        for defaultPort in [scheme == "http" ? ":80" : ":443"] where authority.hasSuffix(defaultPort) {
            authority = authority.dropLast(defaultPort.count)
        }
        return (scheme, String(authority), usePathStyle)
    }

    /// `YYYYMMDDTHHMMSSZ` in UTC.
    static func amzDate(_ now: time_t) -> String {
        var time = now
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }
}

/// A signed GET, as libcurl sends it.
public struct S3Request: Sendable, Equatable {
    public let url: String
    /// `Name: value`, Host and Authorization among them.
    public let headers: [String]
    /// Sent to the operator's endpoint: exempt from the source address policy.
    public let trusted: Bool
}
