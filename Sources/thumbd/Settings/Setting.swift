/// Every setting thumbd reads, with the environment variables it is read from.
public enum Setting: String, CaseIterable, Sendable {
    case listen = "LISTEN"
    case socketGroup = "SOCKET_GROUP"
    case paramsTimeout = "PARAMS_TIMEOUT"
    case cacheRoot = "CACHE_ROOT"
    case cacheIndex = "CACHE_INDEX"
    case cacheMaxBytes = "CACHE_MAX_BYTES"
    case cacheMaxEntries = "CACHE_MAX_ENTRIES"
    case cacheLowWater = "CACHE_LOW_WATER"
    case cacheHitsLog = "CACHE_HITS_LOG"
    case workers = "WORKERS"
    case logLevel = "LOG_LEVEL"
    case key = "KEY"
    case salt = "SALT"
    case signatureSize = "SIGNATURE_SIZE"
    case insecure = "INSECURE"
    case baseURL = "BASE_URL"
    case maxSrcFileSize = "MAX_SRC_FILE_SIZE"
    case maxSrcResolution = "MAX_SRC_RESOLUTION"
    case downloadTimeout = "DOWNLOAD_TIMEOUT"
    case maxRedirects = "MAX_REDIRECTS"
    case userAgent = "USER_AGENT"
    case sourceProxy = "SOURCE_PROXY"
    case allowLoopbackSourceAddresses = "ALLOW_LOOPBACK_SOURCE_ADDRESSES"
    case allowPrivateSourceAddresses = "ALLOW_PRIVATE_SOURCE_ADDRESSES"
    case allowLinkLocalSourceAddresses = "ALLOW_LINK_LOCAL_SOURCE_ADDRESSES"
    case allowedSources = "ALLOWED_SOURCES"
    case allowedSourceAddresses = "ALLOWED_SOURCE_ADDRESSES"
    case localFileSystemRoot = "LOCAL_FILESYSTEM_ROOT"
    case firstByteTimeout = "FIRST_BYTE_TIMEOUT"
    case timeout = "TIMEOUT"
    case requestsQueueSize = "REQUESTS_QUEUE_SIZE"
    case maxConcurrentFetches = "MAX_CONCURRENT_FETCHES"
    case maxConcurrentFetchesPerHost = "MAX_CONCURRENT_FETCHES_PER_HOST"
    case maxConcurrentRenders = "MAX_CONCURRENT_RENDERS"
    case sourceMemoryCacheSize = "SOURCE_MEMORY_CACHE_SIZE"
    case sourceMemoryCacheSeconds = "SOURCE_MEMORY_CACHE_SECONDS"
    case notFoundCacheTTL = "NOT_FOUND_CACHE_TTL"
    case errorCacheTTL = "ERROR_CACHE_TTL"
    case sourceHeaders = "SOURCE_HEADERS"
    case maxAnimationFrames = "MAX_ANIMATION_FRAMES"
    case sourceFormats = "SOURCE_FORMATS"
    case maxRenderSeconds = "MAX_RENDER_SECONDS"
    case autoWebp = "AUTO_WEBP"
    case autoAvif = "AUTO_AVIF"
    case magickPolicyDir = "MAGICK_POLICY_DIR"
    case watermarkPath = "WATERMARK_PATH"
    case fallbackImagePath = "FALLBACK_IMAGE_PATH"
    case fallbackImageData = "FALLBACK_IMAGE_DATA"
    case fallbackImageURL = "FALLBACK_IMAGE_URL"
    case fallbackImageHTTPCode = "FALLBACK_IMAGE_HTTP_CODE"
    case fallbackImageTTL = "FALLBACK_IMAGE_TTL"
    case quality = "QUALITY"
    case formatQuality = "FORMAT_QUALITY"
    case presets = "PRESETS"
    case onlyPresets = "ONLY_PRESETS"
    case allowSecurityOptions = "ALLOW_SECURITY_OPTIONS"

    /// THUMBD_ first; then IMGPROXY_ where imgproxy's setting means the same, so an imgproxy
    /// user's environment works unchanged.
    public var environmentNames: [String] {
        isThumbdOwn ? ["THUMBD_\(rawValue)"] : ["THUMBD_\(rawValue)", "IMGPROXY_\(rawValue)"]
    }

    /// Settings imgproxy does not have (or has with another meaning).
    public var isThumbdOwn: Bool {
        switch self {
        case .listen, .socketGroup, .paramsTimeout, .sourceFormats, .cacheRoot, .insecure, .maxRenderSeconds, .cacheIndex, .cacheMaxBytes, .cacheMaxEntries, .cacheLowWater, .cacheHitsLog,
             .allowedSourceAddresses, .firstByteTimeout, .maxConcurrentFetches,
             .maxConcurrentFetchesPerHost, .maxConcurrentRenders, .sourceMemoryCacheSize, .sourceMemoryCacheSeconds,
             .notFoundCacheTTL,
             .errorCacheTTL, .sourceHeaders, .magickPolicyDir, .sourceProxy:
            true
        default:
            false
        }
    }
}
