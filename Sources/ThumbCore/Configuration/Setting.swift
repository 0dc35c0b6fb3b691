/// Every setting thumbd reads, with the environment variables it is read from.
public enum Setting: String, CaseIterable, Sendable {
    case listen = "LISTEN"
    case cacheRoot = "CACHE_ROOT"
    case workers = "WORKERS"
    case logLevel = "LOG_LEVEL"
    case key = "KEY"
    case salt = "SALT"
    case signatureSize = "SIGNATURE_SIZE"
    case baseURL = "BASE_URL"
    case maxSrcFileSize = "MAX_SRC_FILE_SIZE"
    case maxSrcResolution = "MAX_SRC_RESOLUTION"
    case downloadTimeout = "DOWNLOAD_TIMEOUT"
    case maxRedirects = "MAX_REDIRECTS"
    case userAgent = "USER_AGENT"
    case allowLoopbackSourceAddresses = "ALLOW_LOOPBACK_SOURCE_ADDRESSES"
    case allowPrivateSourceAddresses = "ALLOW_PRIVATE_SOURCE_ADDRESSES"
    case allowLinkLocalSourceAddresses = "ALLOW_LINK_LOCAL_SOURCE_ADDRESSES"

    /// THUMBD_ first; then IMGPROXY_ where imgproxy's setting means the same, so an imgproxy
    /// user's environment works unchanged. LISTEN and CACHE_ROOT are thumbd's own.
    public var environmentNames: [String] {
        switch self {
        case .listen, .cacheRoot: ["THUMBD_\(rawValue)"]
        default: ["THUMBD_\(rawValue)", "IMGPROXY_\(rawValue)"]
        }
    }
}
