import ArgumentParser
import Foundation

/// The settings every subcommand reads: flags here, else THUMBD_<NAME>, else IMGPROXY_<NAME>.
struct SettingsOptions: ParsableArguments {
    @Option(help: "unix:/path/to/socket or host:port to take FastCGI connections on. [THUMBD_LISTEN, default unix:/run/thumbd/thumbd.sock]")
    var listen: String?

    @Option(help: "The group nginx's workers run in: the unix socket is made 0660 in it. [THUMBD_SOCKET_GROUP, default thumbd's own]")
    var socketGroup: String?

    @Option(help: "Seconds a FastCGI connection has to send its request's parameters. [THUMBD_PARAMS_TIMEOUT, default 5]")
    var paramsTimeout: String?

    @Option(help: "The directory nginx serves thumbnails from (its root). [THUMBD_CACHE_ROOT, default /var/cache/thumbd]")
    var cacheRoot: String?

    @Option(help: "The cache index file every thumbd on the cache shares. [THUMBD_CACHE_INDEX, default <cache root>.index]")
    var cacheIndex: String?

    @Option(help: "Bytes of thumbnails to keep; past it the least recently used go. [THUMBD_CACHE_MAX_BYTES, default 10737418240]")
    var cacheMaxBytes: String?

    @Option(help: "Thumbnail files to keep; sizes the index (about 300 B each). [THUMBD_CACHE_MAX_ENTRIES, default 1000000]")
    var cacheMaxEntries: String?

    @Option(help: "Percent of each bound eviction brings the cache down to. [THUMBD_CACHE_LOW_WATER, default 90]")
    var cacheLowWater: String?

    @Option(help: "The log of hits nginx appends to and thumbd reads. [THUMBD_CACHE_HITS_LOG, default <cache root>.hits.log]")
    var cacheHitsLog: String?

    @Option(help: "Worker threads. [THUMBD_WORKERS, default 2 x cores]")
    var workers: String?

    @Option(help: "debug, info, warn or error. [THUMBD_LOG_LEVEL, default info]")
    var logLevel: String?

    @Option(help: "Signing key(s), hex, comma-separated. Serving needs a key, or --insecure. [THUMBD_KEY]")
    var key: String?

    @Option(help: "Signing salt(s), hex, one per key. [THUMBD_SALT]")
    var salt: String?

    @Option(help: "Bytes of the signature to compare, 8 to 32. [THUMBD_SIGNATURE_SIZE, default 32]")
    var signatureSize: String?

    @Flag(help: "Serve URLs without checking their signature (no key): anyone may ask for any thumbnail. [THUMBD_INSECURE]")
    var insecure = false

    @Option(help: "Prefix for sources without a scheme. [THUMBD_BASE_URL]")
    var baseURL: String?

    @Option(help: "Largest source to download, in bytes. [THUMBD_MAX_SRC_FILE_SIZE, default 20971520]")
    var maxSrcFileSize: String?

    @Option(help: "Largest source to decode, in megapixels. [THUMBD_MAX_SRC_RESOLUTION, default 50]")
    var maxSrcResolution: String?

    @Option(help: "Seconds a source download may take in all. [THUMBD_DOWNLOAD_TIMEOUT, default 10]")
    var downloadTimeout: String?

    @Option(help: "Redirects to follow per source. [THUMBD_MAX_REDIRECTS, default 5]")
    var maxRedirects: String?

    @Option(help: "User-Agent sent to origins. [THUMBD_USER_AGENT, default thumbd/VERSION]")
    var userAgent: String?

    @Option(help: "HTTP proxy for source fetches; the environment's are never used. [THUMBD_SOURCE_PROXY]")
    var sourceProxy: String?

    @Flag(help: "Allow sources on loopback addresses. [THUMBD_ALLOW_LOOPBACK_SOURCE_ADDRESSES]")
    var allowLoopbackSourceAddresses = false

    @Flag(help: "Allow sources on private networks (RFC 1918, RFC 4193, CGNAT). [THUMBD_ALLOW_PRIVATE_SOURCE_ADDRESSES]")
    var allowPrivateSourceAddresses = false

    @Flag(help: "Allow sources on link-local addresses. [THUMBD_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES]")
    var allowLinkLocalSourceAddresses = false

    @Option(help: "Source URL prefixes, comma-separated; * stops at /. None: any source. [THUMBD_ALLOWED_SOURCES]")
    var allowedSources: String?

    @Option(help: "Source addresses or CIDR ranges to allow, comma-separated. [THUMBD_ALLOWED_SOURCE_ADDRESSES]")
    var allowedSourceAddresses: String?

    /// Spelt `Filesystem`, not `FileSystem`: ArgumentParser names the flag from the property, and
    /// `flagName` from LOCAL_FILESYSTEM_ROOT, so both say `--local-filesystem-root`.
    @Option(help: "Directory local:///path sources are read under. None: off. [THUMBD_LOCAL_FILESYSTEM_ROOT]")
    var localFilesystemRoot: String?

    @Option(help: "Seconds from the start of a download to its first byte. [THUMBD_FIRST_BYTE_TIMEOUT, default 5]")
    var firstByteTimeout: String?

    @Option(help: "Seconds a client waits for a thumbnail before 504; the job goes on. [THUMBD_TIMEOUT, default 20]")
    var timeout: String?

    @Option(help: "Jobs that may wait for a fetch or render slot; beyond, 503. [THUMBD_REQUESTS_QUEUE_SIZE, default 64]")
    var requestsQueueSize: String?

    @Option(help: "Origin downloads at once. [THUMBD_MAX_CONCURRENT_FETCHES, default 16]")
    var maxConcurrentFetches: String?

    @Option(help: "Origin downloads at once from one host. [THUMBD_MAX_CONCURRENT_FETCHES_PER_HOST, default 4]")
    var maxConcurrentFetchesPerHost: String?

    @Option(help: "Renders at once. [THUMBD_MAX_CONCURRENT_RENDERS, default cores]")
    var maxConcurrentRenders: String?

    @Option(help: "Bytes of recently fetched originals kept in memory. [THUMBD_SOURCE_MEMORY_CACHE_SIZE, default 67108864]")
    var sourceMemoryCacheSize: String?
    @Option(help: "Seconds a fetched original stays in memory. [THUMBD_SOURCE_MEMORY_CACHE_SECONDS, default 10]")
    var sourceMemoryCacheSeconds: String?

    @Option(help: "Seconds a missing or refused source is remembered. [THUMBD_NOT_FOUND_CACHE_TTL, default 30]")
    var notFoundCacheTtl: String?

    @Option(help: "Seconds a failing origin (5xx, timeout) is remembered. [THUMBD_ERROR_CACHE_TTL, default 5]")
    var errorCacheTtl: String?

    @Option(help: "Extra request headers per source prefix: 'https://a.example/ X-Key: v|...'. [THUMBD_SOURCE_HEADERS]")
    var sourceHeaders: String?

    @Option(help: "Presets, comma-separated: 'name=option/option/...'; 'default' applies first. [THUMBD_PRESETS]")
    var presets: String?

    @Flag(help: "URLs name presets only: /{signature}/{preset}:{preset}/{source}. [THUMBD_ONLY_PRESETS]")
    var onlyPresets = false

    @Flag(help: "Allow the security options (msr, msfs, maf, mrd) in URLs and presets. [THUMBD_ALLOW_SECURITY_OPTIONS]")
    var allowSecurityOptions = false

    @Option(help: "Frames an animation may have to stay animated; 1 renders the first frame only. [THUMBD_MAX_ANIMATION_FRAMES, default 1]")
    var maxAnimationFrames: String?

    @Option(help: "Source formats to decode, comma-separated; add heic, tiff to read those. [THUMBD_SOURCE_FORMATS, default jpeg,png,gif,webp,avif,bmp]")
    var sourceFormats: String?

    @Option(help: "Seconds a render may take; past it, 422 and the key is free for a later try. [THUMBD_MAX_RENDER_SECONDS, default 10]")
    var maxRenderSeconds: String?

    @Option(help: "WebP for URLs without a format when the client accepts it (true/false). [THUMBD_AUTO_WEBP, default false]")
    var autoWebp: String?

    @Option(help: "AVIF for URLs without a format when the client accepts it (true/false). [THUMBD_AUTO_AVIF, default false]")
    var autoAvif: String?

    @Option(help: "Directory of thumbd's ImageMagick policy.xml (deploy/policy.xml). [THUMBD_MAGICK_POLICY_DIR, default /etc/thumbd]")
    var magickPolicyDir: String?

    @Option(help: "Image file the wm option draws (PNG with transparency works best). [THUMBD_WATERMARK_PATH]")
    var watermarkPath: String?

    @Option(help: "Image answered, rendered with the URL's options, when a source cannot be fetched or decoded. [THUMBD_FALLBACK_IMAGE_PATH]")
    var fallbackImagePath: String?

    @Option(help: "The fallback image itself, in base64. [THUMBD_FALLBACK_IMAGE_DATA]")
    var fallbackImageData: String?

    @Option(help: "URL of the fallback image, fetched once at start. [THUMBD_FALLBACK_IMAGE_URL]")
    var fallbackImageUrl: String?

    @Option(help: "Status the fallback image is answered with. [THUMBD_FALLBACK_IMAGE_HTTP_CODE, default 200]")
    var fallbackImageHttpCode: String?

    @Option(help: "Seconds clients may keep the fallback image (Cache-Control max-age). [THUMBD_FALLBACK_IMAGE_TTL, default 60]")
    var fallbackImageTtl: String?

    @Option(help: "Quality of JPEG, WebP and AVIF where a URL asks for none. [THUMBD_QUALITY]")
    var quality: String?

    @Option(help: "Per-format qualities, e.g. jpeg=82,webp=75,avif=60. [THUMBD_FORMAT_QUALITY, default jpeg=80,webp=79,avif=63]")
    var formatQuality: String?

    /// Loads and validates the whole configuration; on any problem, lists them all and exits 2.
    /// What serves or signs URLs needs a key or insecure mode too.
    func configuration(signingURLs: Bool = false) throws -> Settings {
        let environment = ProcessInfo.processInfo.environment
        let flags = flagValues()
        let loaded = Settings.load { setting in
            if let value = flags[setting] { return (value, "--\(Self.flagName(setting))") }
            for name in setting.environmentNames {
                if let value = environment[name] { return (value, name) }
            }
            return nil
        }
        switch loaded {
        case .success(let configuration):
            guard signingURLs, let problem = configuration.signingProblem else { return configuration }
            FileHandle.standardError.write(Data("thumbd: invalid configuration:\n\(problem)\n".utf8))
            throw ExitCode(2)
        case .failure(let problems):
            FileHandle.standardError.write(Data("thumbd: invalid configuration:\n\(problems)\n".utf8))
            throw ExitCode(2)
        }
    }

    private func flagValues() -> [Setting: String] {
        var values: [Setting: String?] = [
            .listen: listen, .socketGroup: socketGroup, .paramsTimeout: paramsTimeout, .cacheRoot: cacheRoot, .workers: workers, .logLevel: logLevel,
            .cacheIndex: cacheIndex, .cacheMaxBytes: cacheMaxBytes, .cacheMaxEntries: cacheMaxEntries,
            .cacheLowWater: cacheLowWater, .cacheHitsLog: cacheHitsLog,
            .key: key, .salt: salt, .signatureSize: signatureSize, .baseURL: baseURL,
            .maxSrcFileSize: maxSrcFileSize, .maxSrcResolution: maxSrcResolution,
            .downloadTimeout: downloadTimeout, .maxRedirects: maxRedirects, .userAgent: userAgent,
            .sourceProxy: sourceProxy,
            .allowedSources: allowedSources, .allowedSourceAddresses: allowedSourceAddresses,
            .localFileSystemRoot: localFilesystemRoot, .firstByteTimeout: firstByteTimeout, .timeout: timeout,
            .requestsQueueSize: requestsQueueSize, .maxConcurrentFetches: maxConcurrentFetches,
            .maxConcurrentFetchesPerHost: maxConcurrentFetchesPerHost, .maxConcurrentRenders: maxConcurrentRenders,
            .sourceMemoryCacheSize: sourceMemoryCacheSize,
            .sourceMemoryCacheSeconds: sourceMemoryCacheSeconds, .notFoundCacheTTL: notFoundCacheTtl,
            .errorCacheTTL: errorCacheTtl, .sourceHeaders: sourceHeaders,
            .maxAnimationFrames: maxAnimationFrames, .sourceFormats: sourceFormats, .maxRenderSeconds: maxRenderSeconds, .autoWebp: autoWebp, .autoAvif: autoAvif,
            .magickPolicyDir: magickPolicyDir, .watermarkPath: watermarkPath,
            .fallbackImagePath: fallbackImagePath, .fallbackImageData: fallbackImageData, .fallbackImageURL: fallbackImageUrl,
            .fallbackImageHTTPCode: fallbackImageHttpCode, .fallbackImageTTL: fallbackImageTtl,
            .quality: quality, .formatQuality: formatQuality, .presets: presets,
        ]
        if allowLoopbackSourceAddresses { values[.allowLoopbackSourceAddresses] = "true" }
        if allowPrivateSourceAddresses { values[.allowPrivateSourceAddresses] = "true" }
        if allowLinkLocalSourceAddresses { values[.allowLinkLocalSourceAddresses] = "true" }
        if insecure { values[.insecure] = "true" }
        if onlyPresets { values[.onlyPresets] = "true" }
        if allowSecurityOptions { values[.allowSecurityOptions] = "true" }
        return values.compactMapValues { $0 }
    }

    /// `MAX_SRC_FILE_SIZE` → `max-src-file-size`, as ArgumentParser names the properties.
    static func flagName(_ setting: Setting) -> String {
        setting.declaration.flag
    }
}
