import ThumbCache
import ThumbImaging
import ThumbRequest

/// Every setting thumbd reads. A case only names a setting: its `declaration` says everything
/// else once, and the flags, environment names, file keys, ranges checked at start, `--help` and
/// docs/configuration.md are all derived from it.
public enum Setting: CaseIterable, Sendable {
    case config
    case listen, socketGroup, paramsTimeout, workers, logLevel, logFormat
    case cacheRoot, cacheIndex, cacheMaxBytes, cacheMaxEntries, cacheLowWater, cacheEvictionPolicy, cacheHitsLog
    case key, salt, signatureSize, insecure
    case baseURL, allowedSources, allowedSourceAddresses, localFileSystemRoot
    case allowLoopbackSourceAddresses, allowPrivateSourceAddresses, allowLinkLocalSourceAddresses
    case maxSrcFileSize, maxSrcResolution, downloadTimeout, firstByteTimeout, maxRedirects, userAgent, sourceProxy
    case sourceHeaders
    case useS3, s3Region, s3Endpoint, s3EndpointUsePathStyle, s3AllowedBuckets, s3DeniedBuckets
    case s3AccessKeyID, s3SecretAccessKey, s3SessionToken
    case timeout, requestsQueueSize, maxConcurrentFetches, maxConcurrentFetchesPerHost, maxConcurrentRenders
    case sourceMemoryCacheSize, sourceMemoryCacheSeconds, notFoundCacheTTL, errorCacheTTL
    case presets, onlyPresets, allowSecurityOptions
    case stripMetadata, keepCopyright, stripColorProfile, autoRotate, returnAttachment, skipProcessingFormats
    case quality, formatQuality, subsampleBelow, webpEffort, avifSpeed, avifSubsample, jxlEffort
    case pngQuantize, pngQuantizationColors
    case autoqualityMethod, autoqualityTarget, autoqualityMin, autoqualityFormatMin, autoqualityMax
    case autoqualityFormatMax, autoqualityAllowedError, autoqualityMaxResolution, autoqualityScoreResolution
    case autoqualityDssimSlope
    case autoWebp, autoAvif, autoJxl, sourceFormats, maxAnimationFrames, maxRenderSeconds, magickPolicyDir
    case watermarkPath, watermarkData, watermarkOpacity, maxResultDimension, trustedSignatures
    case fallbackImagePath, fallbackImageData, fallbackImageURL, fallbackImageHTTPCode, fallbackImageTTL
    // The output format's choice (where the URL names none, or the client's Accept overrides it).
    case preferredFormats, enforceWebp, enforceAvif, enforceJxl, enableWebpDetection, enableAvifDetection
    case formatNegotiationOrder, bestFormatByDefault, bestFormatMaxResolution
    case prometheusBind, prometheusNamespace, metricsToken

    // swiftlint:disable:next function_body_length
    public var declaration: SettingDeclaration {
        switch self {
        case .config:
            .init("CONFIG", .text, .none,
                  "A settings file: THUMBD_NAME=value lines, or a .json file keyed by the names in lowercase "
                  + "(e.g. {\"max_src_file_size\": 10485760}); flags and the environment win over it. SIGHUP reads it "
                  + "again for the settings marked so.")
        case .listen:
            .init("LISTEN", .text, .field { "\($0.listen)" },
                  "unix:/path/to/socket or host:port to take FastCGI connections on.")
        case .socketGroup:
            .init("SOCKET_GROUP", .text, .described("thumbd's own"),
                  "The group nginx's workers run in: the unix socket is made 0660 in it.",
                  details: "The group nginx's workers run in: a unix socket thumbd makes is 0660 in it (needs "
                      + "chown, or thumbd running in that group). Under the package's units thumbd.socket makes the "
                      + "socket, in www-data's group: leave it unset.")
        case .paramsTimeout:
            .init("PARAMS_TIMEOUT", .decimal(0.1...600), .field { $0.paramsTimeout.shortText },
                  "Seconds a FastCGI connection has to send its request's parameters.")
        case .workers:
            .init("WORKERS", .integer(1...1024), .described("2 x cores"), "FastCGI worker threads.",
                  details: "Worker threads that parse and answer requests the accepting thread hands them; a miss "
                      + "does not hold one while its job runs. (imgproxy's `IMGPROXY_WORKERS` is thumbd's "
                      + "`MAX_CONCURRENT_RENDERS`.)")
        case .logLevel:
            .init("LOG_LEVEL", imgproxy: true, .text, .field { $0.logLevel.rawValue }, "debug, info, warn or error.")
        case .logFormat:
            .init("LOG_FORMAT", imgproxy: true, .text, .field { $0.logFormat.rawValue },
                  "pretty, structured (logfmt), json or gcp (Google Cloud Logging's JSON).")
        case .cacheRoot:
            .init("CACHE_ROOT", .text, .field { $0.cacheRoot },
                  "The directory nginx serves thumbnails from (its root).")
        case .cacheIndex:
            .init("CACHE_INDEX", .text, .described("<cache root>.index"),
                  "The cache index file every thumbd on the cache shares.")
        case .cacheMaxBytes:
            .init("CACHE_MAX_BYTES", .integer(1...(1 << 50)), .field { "\($0.cache.maxBytes)" },
                  "Bytes the cache takes on disk (files' blocks, directories, index); past it thumbnails are evicted.",
                  details: "Bytes the cache takes on disk: its files' blocks, its directories and the index; past "
                      + "it thumbnails are evicted, in the order `CACHE_EVICTION_POLICY` says. Without "
                      + "`CACHE_MAX_ENTRIES`, it sizes that too, and must then be 3,454,720 or more.")
        case .cacheMaxEntries:
            .init("CACHE_MAX_ENTRIES", .integer(1...CacheSettings.mostEntries),
                  .described("CACHE_MAX_BYTES / 8 KiB, 1,000 to 100,000,000"),
                  "Thumbnail files to keep; sizes the index (about 170 B each).",
                  details: "Thumbnail files kept; also sizes the index file and its sketch, about 170 bytes an entry "
                      + "(169 MB a million), reserved on disk at start and counted in `CACHE_MAX_BYTES`. Unset, it is "
                      + "what `CACHE_MAX_BYTES` holds of 8 KiB thumbnails (the median a thumbnail takes on disk), "
                      + "from 1,000 to 100,000,000: an index of at most 5 % of the bound. Set, its index may take up to "
                      + "half of `CACHE_MAX_BYTES`.")
        case .cacheLowWater:
            .init("CACHE_LOW_WATER", .integer(1...99), .field { "\($0.cache.lowWaterPercent)" },
                  "Percent of each bound eviction brings the cache down to.")
        case .cacheEvictionPolicy:
            .init("CACHE_EVICTION_POLICY", .text, .field { $0.cache.evictionPolicy.rawValue },
                  "probation (scan-resistant) or lru: which thumbnails eviction takes first.",
                  details: "Which thumbnails eviction takes first. `probation`: a new thumbnail is on probation, "
                      + "which keeps a hundredth of the cache, and nginx's hits keep it there; past that the least "
                      + "recently used on probation meet victims from the least recently used of the rest, the "
                      + "most asked for against the least, and of each pair the one asked for less often lately "
                      + "goes, the other staying, admitted (W-TinyLFU: every "
                      + "request counted in `<index>.uses`, thumbnails long evicted included), so a crawler's single "
                      + "requests replace each other and not what people look at (bench/EVICTION.md). `lru`: least "
                      + "recently used first.")
        case .cacheHitsLog:
            .init("CACHE_HITS_LOG", .text, .described("<cache root>.hits.log"),
                  "The log of hits nginx appends to and thumbd reads.")
        case .key:
            .init("KEY", imgproxy: true, secret: true, reloads: true, .text, .none,
                  "Signing key(s), hex, comma-separated. Serving needs a key, or --insecure.")
        case .salt:
            .init("SALT", imgproxy: true, secret: true, reloads: true,
                  .text, .none, "Signing salt(s), hex, one per key.")
        case .signatureSize:
            .init("SIGNATURE_SIZE", imgproxy: true, reloads: true, .integer(SignatureVerifier.minimumSize...32),
                  .field { "\($0.signing.size)" }, "Bytes of the signature to compare.",
                  details: "Bytes of the HMAC the signature carries (8–32; imgproxy allows 1–32, but fewer than 8 "
                      + "bytes can be found by trying).")
        case .insecure:
            .init("INSECURE", .flag, .field { "\($0.signing.acceptsAnySignature)" },
                  "Serve URLs without checking their signature (no key): anyone may ask for any thumbnail.")
        case .baseURL:
            .init("BASE_URL", imgproxy: true, reloads: true, .text, .none,
                  "Put before every source that does not start with it (imgproxy's rule), so it confines sources.",
                  details: "Put before every source that does not start with it, as imgproxy does, so it confines "
                      + "sources: `cat.jpg` and `http://elsewhere/x.jpg` alike are read under it. A base without a "
                      + "path (`https://origin.example`) is taken with its `/`. With a web base, `local://` and "
                      + "`s3://` sources are paths on it; with `local:///dir/`, every source is read under that "
                      + "directory.")
        case .allowedSources:
            .init("ALLOWED_SOURCES", imgproxy: true, reloads: true, .text, .described("any source"),
                  "Source URL prefixes, comma-separated; * stops at /.",
                  details: "Source URL prefixes, comma-separated; `*` matches within one part of the URL "
                      + "(`https://*.example.com/`); `local://` sources must be listed too.")
        case .allowedSourceAddresses:
            .init("ALLOWED_SOURCE_ADDRESSES", reloads: true, .text, .none,
                  "Source addresses or CIDR ranges to allow, comma-separated.",
                  details: "Addresses or CIDR ranges (`10.0.0.5`, `fd00::/8`), comma-separated, allowed whatever "
                      + "their class; never unspecified or multicast.")
        case .localFileSystemRoot:
            .init("LOCAL_FILESYSTEM_ROOT", imgproxy: true, .text, .described("off"),
                  "Directory local:///path sources are read under.",
                  details: "The directory `local:///path` sources are read under; nothing outside it, symlinks "
                      + "included.")
        case .allowLoopbackSourceAddresses:
            .init("ALLOW_LOOPBACK_SOURCE_ADDRESSES", imgproxy: true, reloads: true, .flag,
                  .field { "\($0.fetch.addressPolicy.allowLoopback)" }, "Allow sources on loopback addresses.")
        case .allowPrivateSourceAddresses:
            .init("ALLOW_PRIVATE_SOURCE_ADDRESSES", imgproxy: true, reloads: true, .flag,
                  .field { "\($0.fetch.addressPolicy.allowPrivate)" },
                  "Allow sources on private networks (RFC 1918, RFC 4193, CGNAT).",
                  details: "Allow RFC 1918, RFC 4193, CGNAT, benchmarking, DS-Lite, SRv6, IPv4 inside IPv6 (6to4, "
                      + "Teredo, NAT64 to a non-global address).")
        case .allowLinkLocalSourceAddresses:
            .init("ALLOW_LINK_LOCAL_SOURCE_ADDRESSES", imgproxy: true, reloads: true, .flag,
                  .field { "\($0.fetch.addressPolicy.allowLinkLocal)" }, "Allow sources on link-local addresses.")
        case .maxSrcFileSize:
            .init("MAX_SRC_FILE_SIZE", imgproxy: true, .integer(0...(1 << 50)), .field { "\($0.fetch.maxBytes)" },
                  "Largest source to download, in bytes; 0: no limit.")
        case .maxSrcResolution:
            .init("MAX_SRC_RESOLUTION", imgproxy: true, .decimal(0.01...1_000),
                  .field { (Double($0.render.maxSourcePixels) / 1_000_000).shortText },
                  "Largest source to decode, in megapixels.")
        case .downloadTimeout:
            .init("DOWNLOAD_TIMEOUT", imgproxy: true, .decimal(0.1...600),
                  .field { (Double($0.fetch.totalTimeoutMilliseconds) / 1000).shortText },
                  "Seconds a source download may take in all.")
        case .firstByteTimeout:
            .init("FIRST_BYTE_TIMEOUT", .decimal(0.1...600),
                  .field { (Double($0.fetch.firstByteTimeoutMilliseconds) / 1000).shortText },
                  "Seconds from the start of a download to its first byte.")
        case .maxRedirects:
            .init("MAX_REDIRECTS", imgproxy: true, .integer(0...20), .field { "\($0.fetch.maxRedirects)" },
                  "Redirects to follow per source.")
        case .userAgent:
            .init("USER_AGENT", imgproxy: true, .text, .described("thumbd/VERSION"),
                  "User-Agent sent to origins; %current_version is thumbd's version.")
        case .sourceProxy:
            .init("SOURCE_PROXY", .text, .none, "HTTP proxy for source fetches; the environment's are never used.",
                  details: "`http://` or `https://` proxy for source downloads (`http_proxy`, `HTTPS_PROXY`, "
                      + "`ALL_PROXY` are never used); with one, thumbd resolves each source's host, checks the "
                      + "address against the address settings before anything connects, and has the proxy tunnel "
                      + "(CONNECT) to that address.")
        case .sourceHeaders:
            .init("SOURCE_HEADERS", secret: true, reloads: true, .text, .none,
                  "Extra request headers per source prefix: 'https://a.example/ X-Key: v|...'.",
                  details: "Extra request headers per source prefix: `https://a.example/ X-Key: v`, entries "
                      + "separated by `\\|`; thumbd follows redirects itself and sends each hop only the headers "
                      + "of its own URL's prefix, so a token never follows a redirect to another origin.")
        case .useS3:
            .init("USE_S3", imgproxy: true, reloads: true, .boolean, .field { "\($0.fetch.s3.enabled)" },
                  "Read s3://bucket/key[?version] sources from S3 or an S3-compatible store.",
                  details: "Read `s3://bucket/key` sources (`?version` for a versioned object) from S3 or an "
                      + "S3-compatible store, signed with AWS Signature Version 4, with the credentials `S3_ACCESS_KEY_ID` "
                      + "gives, else those an AWS SDK finds (docs/production.md). They go through the same limits, "
                      + "coalescing, timeouts and failure memory as downloads, and `ALLOWED_SOURCES` must list "
                      + "`s3://` prefixes when it is set.")
        case .s3Region:
            .init("S3_REGION", imgproxy: true, reloads: true, .text,
                  .described("AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1"),
                  "The region S3 requests are signed for, and whose AWS endpoint they go to.")
        case .s3Endpoint:
            .init("S3_ENDPOINT", imgproxy: true, reloads: true, .text, .described("AWS's, for the region"),
                  "http(s)://host[:port] of an S3-compatible store; the source address settings do not apply to it.",
                  details: "`http(s)://host[:port]` of an S3-compatible store (MinIO, Ceph, Cloudflare R2, Google "
                      + "Cloud Storage's XML API `https://storage.googleapis.com` with HMAC keys as the access key "
                      + "and secret). Trusted by configuration: the source address settings do not apply to it, "
                      + "and to nothing else.")
        case .s3EndpointUsePathStyle:
            .init("S3_ENDPOINT_USE_PATH_STYLE", imgproxy: true, reloads: true, .boolean,
                  .field { "\($0.fetch.s3.usePathStyle)" },
                  "With S3_ENDPOINT, the bucket goes in the path (true) or in the host name (false).")
        case .s3AllowedBuckets:
            .init("S3_ALLOWED_BUCKETS", imgproxy: true, reloads: true, .text, .described("any bucket"),
                  "Buckets s3:// sources may name, comma-separated.")
        case .s3DeniedBuckets:
            .init("S3_DENIED_BUCKETS", imgproxy: true, reloads: true, .text, .none,
                  "Buckets s3:// sources may not name, comma-separated.")
        case .s3AccessKeyID:
            .init("S3_ACCESS_KEY_ID", secret: true, reloads: true, .text, .described("the AWS credential chain's"),
                  "Access key S3 requests are signed with; with S3_SECRET_ACCESS_KEY, before the AWS chain.",
                  details: "Access key S3 requests are signed with, given with `S3_SECRET_ACCESS_KEY` (and "
                      + "`S3_SESSION_TOKEN` for temporary ones); unset, the chain an AWS SDK reads is "
                      + "(docs/production.md). Keep it in the settings file, readable by root and thumbd only; "
                      + "SIGHUP reads it again.")
        case .s3SecretAccessKey:
            .init("S3_SECRET_ACCESS_KEY", secret: true, reloads: true, .text, .none,
                  "The secret of S3_ACCESS_KEY_ID.")
        case .s3SessionToken:
            .init("S3_SESSION_TOKEN", secret: true, reloads: true, .text, .none,
                  "The session token of temporary S3 credentials.")
        case .timeout:
            .init("TIMEOUT", imgproxy: true, .decimal(0.1...3_600), .field { $0.limits.requestTimeout.shortText },
                  "Seconds a client waits for a thumbnail before 504; the job goes on.")
        case .requestsQueueSize:
            .init("REQUESTS_QUEUE_SIZE", imgproxy: true, .integer(0...100_000), .field { "\($0.limits.queueSize)" },
                  "Jobs that may wait for a fetch or render slot; beyond, 503; 0: no limit.",
                  details: "Jobs that may wait for a fetch, host or render slot; beyond it, 503 with `Retry-After`; "
                      + "0: no limit.")
        case .maxConcurrentFetches:
            .init("MAX_CONCURRENT_FETCHES", .integer(1...1024), .field { "\($0.limits.fetches)" },
                  "Origin downloads at once.")
        case .maxConcurrentFetchesPerHost:
            .init("MAX_CONCURRENT_FETCHES_PER_HOST", .integer(1...1024), .field { "\($0.limits.fetchesPerHost)" },
                  "Origin downloads at once from one host.")
        case .maxConcurrentRenders:
            .init("MAX_CONCURRENT_RENDERS", imgproxyName: "WORKERS", .integer(1...1024), .described("cores"),
                  "Renders at once.",
                  details: "Renders at once (imgproxy's `WORKERS`, whose default is 2 x cores: one per core "
                      + "keeps a render's latency low).")
        case .sourceMemoryCacheSize:
            .init("SOURCE_MEMORY_CACHE_SIZE", .integer(0...(1 << 36)), .field { "\($0.limits.sourceMemoryBytes)" },
                  "Bytes of recently fetched originals kept in memory.",
                  details: "Bytes of recently fetched originals kept in memory, so several sizes of one photo are "
                      + "fetched once.")
        case .sourceMemoryCacheSeconds:
            .init("SOURCE_MEMORY_CACHE_SECONDS", .decimal(0.1...3_600),
                  .field { $0.limits.sourceMemorySeconds.shortText }, "Seconds a fetched original stays in memory.",
                  details: "How long a fetched original stays in memory (an idle thumbd holds none).")
        case .notFoundCacheTTL:
            .init("NOT_FOUND_CACHE_TTL", .decimal(0...86_400),
                  .field { $0.limits.failureLifetimes.notFound.shortText },
                  "Seconds a missing or refused source is remembered.")
        case .errorCacheTTL:
            .init("ERROR_CACHE_TTL", .decimal(0...86_400), .field { $0.limits.failureLifetimes.failure.shortText },
                  "Seconds a failing origin (5xx, timeout) is remembered.")
        case .presets:
            .init("PRESETS", imgproxy: true, reloads: true, .text, .none,
                  "Presets, comma-separated: 'name=option/option/...'; 'default' applies first.",
                  details: "Presets, comma-separated: `name=option/option/...` (`thumb=rs:fill:300:200/q:70`); "
                      + "`default` applies to every URL first; each broken preset (a bad option, an unknown "
                      + "preset) is named at start; a preset that includes itself is skipped there, as imgproxy "
                      + "skips it.")
        case .onlyPresets:
            .init("ONLY_PRESETS", imgproxy: true, reloads: true, .flag, .field { "\($0.options.onlyPresets)" },
                  "URLs name presets only: /{signature}/{preset}:{preset}/{source}.")
        case .allowSecurityOptions:
            .init("ALLOW_SECURITY_OPTIONS", imgproxy: true, reloads: true,
                  .flag, .field { "\($0.options.allowSecurityOptions)" },
                  "Allow the security options (msr, msfs, maf, mrd) in URLs and presets.")
        case .stripMetadata:
            .init("STRIP_METADATA", imgproxy: true, reloads: true,
                  .boolean, .field { "\($0.options.base.stripMetadata)" },
                  "Strip metadata (EXIF, XMP, IPTC) where a URL does not say (sm).")
        case .keepCopyright:
            .init("KEEP_COPYRIGHT", imgproxy: true, reloads: true,
                  .boolean, .field { "\($0.options.base.keepCopyright)" },
                  "Keep the copyright while stripping metadata, where a URL does not say (kcr).")
        case .stripColorProfile:
            .init("STRIP_COLOR_PROFILE", imgproxy: true, reloads: true,
                  .boolean, .field { "\($0.options.base.stripColorProfile)" },
                  "Convert to sRGB and drop the colour profile where a URL does not say (scp).")
        case .autoRotate:
            .init("AUTO_ROTATE", imgproxy: true, reloads: true, .boolean, .field { "\($0.options.base.autoRotate)" },
                  "Orient by EXIF where a URL does not say (ar).")
        case .returnAttachment:
            .init("RETURN_ATTACHMENT", imgproxy: true, reloads: true,
                  .boolean, .field { "\($0.options.base.returnAttachment)" },
                  "Answer with Content-Disposition: attachment where a URL does not say (att).")
        case .skipProcessingFormats:
            .init("SKIP_PROCESSING_FORMATS", imgproxy: true, reloads: true, .text, .none,
                  "Source formats answered as they are, comma-separated, where a URL does not say (skp).")
        case .quality:
            .init("QUALITY", imgproxy: true, reloads: true,
                  .integer(1...100), .described("per format, as FORMAT_QUALITY"),
                  "Quality of JPEG, WebP, AVIF and JPEG XL where a URL asks for none.")
        case .formatQuality:
            .init("FORMAT_QUALITY", imgproxy: true, reloads: true, .text,
                  .field { _ in
                      formatQualityList(Dictionary(uniqueKeysWithValues: ImageFormat.allCases.map { ($0, $0.defaultQuality) }))
                  },
                  "Per-format qualities, e.g. jpeg=82,webp=75,avif=60.",
                  details: "Per-format qualities, over `QUALITY`; a URL's `fq` redefines them, its `q` wins.")
        case .subsampleBelow:
            .init("SUBSAMPLE_BELOW", reloads: true, .integer(0...101), .field { "\($0.options.base.subsampleBelow)" },
                  "JPEG chroma is 4:2:0 below this quality, 4:4:4 from it, where a URL does not say (ssb).",
                  details: "JPEG chroma is halved both ways (4:2:0) below this quality and kept whole (4:4:4) from it, "
                      + "as libvips and mozjpeg choose, where a URL does not say (`ssb`); 0 never subsamples, 101 "
                      + "always does (what thumbd did before). imgproxy's `JPEG_NO_SUBSAMPLE=true` is 0.")
        case .webpEffort:
            .init("WEBP_EFFORT", imgproxy: true, reloads: true,
                  .integer(1...6), .field { "\($0.options.base.webpEffort)" },
                  "How hard WebP's encoder searches (libwebp's method), 1 to 6.",
                  details: "How hard WebP's encoder searches (libwebp's method), 1 to 6. thumbd's 6 writes 3-6 % fewer "
                      + "bytes than imgproxy's 4 at the same SSIMULACRA2 (q40 to q95; 4.5 % at q80, on bench/quality's "
                      + "photos), for 11 to 16 % more render CPU a fixed-quality WebP miss, 23 % with autoquality's several "
                      + "encodes: paid once a thumbnail, saved on every hit. Not in the key: stored thumbnails keep "
                      + "the bytes they were written with.")
        case .avifSpeed:
            .init("AVIF_SPEED", imgproxy: true, reloads: true,
                  .integer(0...9), .field { "\($0.options.base.avifSpeed)" },
                  "How fast AVIF's encoder (libaom through libavif) works, 0 (slowest, smallest) to 9.",
                  details: "How fast AVIF's encoder (libaom through libavif) works, 0 (slowest, fewest bytes) to 9. "
                      + "Over 6 photos' 300x200 fills at equal SSIMULACRA2 (60 to 70), 4:4:4: speed 8 wrote 0.76x "
                      + "WebP's bytes for 1.11x its render CPU, 7 0.71x for 1.11x, 6 0.65x for 1.26x, 5 0.61x for "
                      + "2.21x, 4 0.59x for 2.73x: below 6 each step buys a few percent for much more CPU, so "
                      + "thumbd's default is 6 (imgproxy's is 8). Not in the key: stored thumbnails keep the bytes "
                      + "they were written with.")
        case .avifSubsample:
            .init("AVIF_SUBSAMPLE", imgproxy: true, reloads: true,
                  .text, .field { $0.options.base.avifSubsample.rawValue },
                  "When AVIF halves its chroma (4:2:0): auto (below quality 90), on (always) or off (never).",
                  details: "When AVIF halves its chroma both ways (4:2:0): `auto` below quality 90 (libvips's rule, "
                      + "imgproxy's default), `on` always, `off` never. thumbd's `off` keeps 4:4:4, which wrote fewer "
                      + "bytes at equal SSIMULACRA2 from a score of 60 up: 0.65x WebP's at speed 6 against 4:2:0's "
                      + "0.94x (6 photos, scores 60 to 70). JPEG's chroma follows "
                      + "`SUBSAMPLE_BELOW` instead; this is AVIF's alone.")
        case .jxlEffort:
            .init("JXL_EFFORT", imgproxy: true, reloads: true,
                  .integer(1...9), .field { "\($0.options.base.jxlEffort)" },
                  "How hard JPEG XL's encoder (libjxl) searches, 1 (fastest) to 9.",
                  details: "How hard JPEG XL's encoder (libjxl) searches, 1 (fastest) to 9. Over 18 photos' "
                      + "300x200 fills at equal SSIMULACRA2 (65 to 75), effort 4 wrote 0.75x thumbd's JPEG bytes for "
                      + "1.05x its render CPU, 5 0.69x for 1.20x, 7 0.69x for 1.32x, 8 0.66x for 3.13x: thumbd's "
                      + "default is 5 (imgproxy's is 4). Not in the key: stored thumbnails keep the bytes they were "
                      + "written with.")
        case .pngQuantize:
            .init("PNG_QUANTIZE", imgproxy: true, reloads: true,
                  .boolean, .field { "\($0.options.base.pngQuantize)" },
                  "Write PNGs with a palette of at most PNG_QUANTIZATION_COLORS colours.",
                  details: "Write PNGs with a palette (colour type 3) of at most `PNG_QUANTIZATION_COLORS` colours, "
                      + "alpha included, quantised by libimagequant (as libvips does for imgproxy, but undithered and "
                      + "stopping at its quality 98: fewer bytes at a better SSIMULACRA2). A flat graphic with "
                      + "transparency takes a third to two thirds of its truecolour bytes (`bench/palette`: 0.35x to 0.69x at "
                      + "SSIMULACRA2 95.8 to 98.3); a photo's gradients show the palette, as in imgproxy. Not in the "
                      + "key: stored thumbnails keep the bytes they were written with.")
        case .pngQuantizationColors:
            .init("PNG_QUANTIZATION_COLORS", imgproxy: true, reloads: true,
                  .integer(2...256), .field { "\($0.options.base.pngQuantizationColors)" },
                  "The most colours a quantised PNG's palette holds, 2 to 256.",
                  details: "The most colours a quantised PNG's palette holds, 2 to 256; the file takes the fewest bits "
                      + "an index that many need (1, 2, 4 or 8). imgproxy rounds the number up to those bits' "
                      + "colours (6 gives 8); thumbd keeps to the number given.")
        case .autoqualityMethod:
            .init("AUTOQUALITY_METHOD", imgproxy: true, reloads: true,
                  .text, .field { $0.options.base.autoQuality.method.rawValue },
                  "none, size or dssim: how a URL's quality is chosen per image where it asks for none (aq).",
                  details: "`none`, `size` (the largest quality whose file fits `AUTOQUALITY_TARGET` bytes) or "
                      + "`dssim` (the lowest whose DSSIM against the unencoded thumbnail is at most the target); see "
                      + "[how it works](how-it-works.md#autoquality). imgproxy's `ml` needs a neural network model "
                      + "thumbd does not run.")
        case .autoqualityTarget:
            .init("AUTOQUALITY_TARGET", imgproxy: true, reloads: true, .decimal(0.000_001...1e12),
                  .field { $0.options.base.autoQuality.target.shortText },
                  "The autoquality target: bytes for size, a DSSIM for dssim.")
        case .autoqualityMin:
            .init("AUTOQUALITY_MIN", imgproxy: true, reloads: true, .integer(1...100),
                  .field { "\($0.options.base.autoQuality.minQuality)" }, "The lowest quality autoquality uses.")
        case .autoqualityFormatMin:
            .init("AUTOQUALITY_FORMAT_MIN", imgproxy: true, reloads: true, .text,
                  .field { formatQualityList($0.options.base.autoQuality.formatMinQuality) },
                  "Per-format lowest qualities over AUTOQUALITY_MIN, e.g. jpeg=70,avif=60.")
        case .autoqualityMax:
            .init("AUTOQUALITY_MAX", imgproxy: true, reloads: true, .integer(1...100),
                  .field { "\($0.options.base.autoQuality.maxQuality)" }, "The highest quality autoquality uses.")
        case .autoqualityFormatMax:
            .init("AUTOQUALITY_FORMAT_MAX", imgproxy: true, reloads: true, .text,
                  .field { formatQualityList($0.options.base.autoQuality.formatMaxQuality) },
                  "Per-format highest qualities over AUTOQUALITY_MAX, e.g. jpeg=85,avif=65.")
        case .autoqualityAllowedError:
            .init("AUTOQUALITY_ALLOWED_ERROR", imgproxy: true, reloads: true, .decimal(0...1),
                  .field { $0.options.base.autoQuality.allowedError.shortText },
                  "dssim stops searching once a quality's DSSIM is this close to the target.")
        case .autoqualityMaxResolution:
            .init("AUTOQUALITY_MAX_RESOLUTION", imgproxy: true, reloads: true, .decimal(0...1_000),
                  .field { $0.options.base.autoQuality.maxResolution.shortText },
                  "Megapixels of the result above which autoquality is not used; 0: no limit.",
                  details: "Megapixels of the result above which autoquality is not used: the image is encoded "
                      + "once, at its plain quality; 0: no limit. imgproxy's default is 0; thumbd's is 5 (2560x1600 "
                      + "fits, as does 2048x2048), because a search costs up to 6 encodes (9 with a slope, 18 for a "
                      + "JPEG's two chromas) and an encode's time grows with the pixels: at `WEBP_EFFORT` 6 a WebP "
                      + "takes about 0.15 s of CPU a megapixel, so 6 of them at 5 MP stay within half of "
                      + "`MAX_RENDER_SECONDS`' 10 s, where at 25 MP the render would time out. Raise it with "
                      + "`MAX_RENDER_SECONDS`.")
        case .autoqualityScoreResolution:
            .init("AUTOQUALITY_SCORE_RESOLUTION", reloads: true, .decimal(0.1...100),
                  .field { $0.options.base.autoQuality.scoreResolution.shortText },
                  "dssim compares at most this many megapixels; a larger result is scored on tiles of it.",
                  details: "thumbd's own. `dssim` compares at most this many megapixels: a larger result is "
                      + "scored on 128x128 tiles of it at full resolution, spread evenly over it, so DSSIM's planes "
                      + "(about 50 bytes a pixel compared) are bounded whatever the result's size; see "
                      + "[how it works](how-it-works.md#autoquality).")
        case .autoqualityDssimSlope:
            .init("AUTOQUALITY_DSSIM_SLOPE", reloads: true, .decimal(0...1_000_000),
                  .field { $0.options.base.autoQuality.dssimSlope.shortText },
                  "dssim spends by slope: bits per pixel a fall of 1 in DSSIM is worth; 0 (imgproxy's dssim) is off.",
                  details: "thumbd's own. 0, the default, is imgproxy's `dssim`: the lowest quality within the "
                      + "target. Above 0 the target is a ceiling: the search goes on raising the quality, 5 at a "
                      + "time (at most 15), while a step's extra bits per pixel are fewer than this times the "
                      + "DSSIM it removes, and a JPEG is searched at 4:4:4 and at 4:2:0, keeping the cheaper, unless "
                      + "`subsample_below` is 0 or 101. On the corpus, 40 with `aq:dssim:0.02:40:95` kept fixed "
                      + "q80's median and worst SSIMULACRA2 in 0.72x its JPEG bytes, for 2.1x its render CPU "
                      + "(1.6x with `subsample_below` 0, which wrote the same files there); WebP, with no chroma "
                      + "to choose, kept q80's median at no slope; see "
                      + "[how it works](how-it-works.md#autoquality).")
        case .autoWebp:
            .init("AUTO_WEBP", imgproxy: true, .boolean, .field { "\($0.negotiation.webp)" },
                  "WebP for URLs without a format when the client accepts it.",
                  details: "WebP for URLs without a format when the client's Accept has `image/webp`; answered with "
                      + "`Vary: Accept`, stored as `{signature}.auto.webp`, which nginx offers only to such "
                      + "clients.")
        case .autoAvif:
            .init("AUTO_AVIF", imgproxy: true, .boolean, .field { "\($0.negotiation.avif)" },
                  "AVIF for URLs without a format when the client accepts it.")
        case .autoJxl:
            .init("AUTO_JXL", imgproxy: true, .boolean, .field { "\($0.negotiation.jxl)" },
                  "JPEG XL for URLs without a format when the client accepts it (after AVIF, by default).",
                  details: "JPEG XL for URLs without a format when the client's Accept has `image/jxl` and, in "
                      + "`FORMAT_NEGOTIATION_ORDER`, no format before it; nginx's site must be written with "
                      + "`--auto jxl` (with the other formats negotiated) so that hits agree.")
        case .sourceFormats:
            .init("SOURCE_FORMATS", .text,
                  .field { settings in
                      SourceFormat.allCases.filter(settings.render.sourceFormats.contains).map(\.rawValue)
                          .joined(separator: ",")
                  },
                  "Source formats to decode, comma-separated; add heic, tiff to read those.",
                  details: "The source formats decoded; add `heic`, `tiff` to read those (their decoders are "
                      + "riskier: see docs/security.md).")
        case .maxAnimationFrames:
            .init("MAX_ANIMATION_FRAMES", imgproxy: true, .integer(1...10_000),
                  .field { "\($0.render.maxAnimationFrames)" },
                  "Frames an animation may have to stay animated; 1 renders the first frame only.",
                  details: "Frames an animated GIF/WebP may have and stay animated (all frames resized on the "
                      + "scaled canvas, delays, loop count and disposal kept, pixels over all frames within "
                      + "`MAX_SRC_RESOLUTION`); 1 renders the first frame; more frames than this is 422.")
        case .maxRenderSeconds:
            .init("MAX_RENDER_SECONDS", .decimal(0.1...3_600), .field { $0.render.maxRenderSeconds.shortText },
                  "Seconds a render may take; past it, 422 and the key is free for a later try.",
                  details: "Seconds a render may take, decode to encode; ImageMagick's own progress monitor stops "
                      + "it past that (within a row of pixels, on its own thread), the answer is 422, nothing is "
                      + "cached and the key is free for a later try.")
        case .magickPolicyDir:
            .init("MAGICK_POLICY_DIR", .text, .field { $0.magickPolicyDirectory },
                  "Directory of thumbd's ImageMagick policy.xml (deploy/policy.xml).",
                  details: "Directory of thumbd's ImageMagick `policy.xml` (ship `deploy/policy.xml` there); thumbd "
                      + "checks the merged policy at start and refuses to run if a dangerous coder is readable, "
                      + "a served format is not, or a time limit is set.")
        case .watermarkPath:
            .init("WATERMARK_PATH", imgproxy: true, .text, .none,
                  "Image file the wm option draws (PNG with transparency works best).")
        case .watermarkData:
            .init("WATERMARK_DATA", imgproxy: true, .text, .none, "The watermark image itself, in base64.")
        case .watermarkOpacity:
            .init("WATERMARK_OPACITY", imgproxy: true, .decimal(0...1), .field { $0.render.watermarkOpacity.shortText },
                  "The watermark's opacity; a URL's wm opacity is a share of it.")
        case .maxResultDimension:
            .init("MAX_RESULT_DIMENSION", imgproxy: true, reloads: true,
                  .integer(0...Int(Int32.max)), .field { _ in "0" },
                  "Widest or tallest result, in pixels, where a URL does not say (mrd); a larger one is scaled down to fit; 0: no limit.")
        case .trustedSignatures:
            .init("TRUSTED_SIGNATURES", imgproxy: true, secret: true, reloads: true, .text, .none,
                  "Signatures accepted without checking, comma-separated, each of 16 characters or more.",
                  details: "Signatures accepted without checking, comma-separated, even with a KEY set (a URL "
                      + "signed by a tool that cannot sign, say); each is as good as a key for the paths it comes "
                      + "with, so each must have 16 characters or more. Such a signature passes with any path, so "
                      + "it names no file nginx serves: its thumbnails are stored privately, and every request "
                      + "with it reaches thumbd. Files an older thumbd stored under it are removed at start.")
        case .fallbackImagePath:
            .init("FALLBACK_IMAGE_PATH", imgproxy: true, .text, .none,
                  "Image answered, rendered with the URL's options, when a source cannot be fetched or decoded.",
                  details: "The image answered when a source cannot be fetched or decoded (404, 413, 422, 502, 504 "
                      + "of the source), rendered with the URL's options, never stored; read and checked at "
                      + "start.")
        case .fallbackImageData:
            .init("FALLBACK_IMAGE_DATA", imgproxy: true, .text, .none, "The fallback image itself, in base64.")
        case .fallbackImageURL:
            .init("FALLBACK_IMAGE_URL", imgproxy: true, .text, .none,
                  "URL of the fallback image, fetched at start, and again in the background until it loads.",
                  details: "The same image fetched at start, through the same address checks as sources; while it "
                      + "fails, thumbd serves without a fallback and tries again, the pause doubling from 1 s to a "
                      + "minute, until it loads (docs/operations.md).")
        case .fallbackImageHTTPCode:
            .init("FALLBACK_IMAGE_HTTP_CODE", imgproxy: true, .integer(0...599), .field { "\($0.fallback.status ?? 0)" },
                  "Status the fallback image is answered with; 0: the status the failure had.")
        case .fallbackImageTTL:
            .init("FALLBACK_IMAGE_TTL", imgproxy: true, .integer(0...31_536_000), .field { "\($0.fallback.maxAge)" },
                  "Seconds clients may keep the fallback image (Cache-Control max-age); 0: a year, as thumbnails.",
                  details: "Seconds clients may keep the fallback image (`Cache-Control: public, max-age=…`), and "
                      + "thumbd its rendering for that URL (in memory), so the real one shows soon after the "
                      + "origin recovers; 0: a year, as thumbnails (imgproxy's `TTL`).")
        case .preferredFormats:
            .init("PREFERRED_FORMATS", imgproxy: true, .text,
                  .field { $0.render.preferredFormats.formats.map(\.rawValue).joined(separator: ",") },
                  "Formats for URLs that name none, comma-separated: the source's if listed, else the first that fits.",
                  details: "The formats written where neither the URL nor the client's Accept picks one: the "
                      + "source's own format if listed, else the first listed that keeps an animation (when "
                      + "`MAX_ANIMATION_FRAMES` > 1) and transparency (the source's alpha, `padding` or `extend`, "
                      + "without `background`), else the first listed. Formats imgproxy knows but thumbd does "
                      + "not write (jxl, heic, ...) are skipped.")
        case .enforceWebp:
            .init("ENFORCE_WEBP", imgproxy: true, .boolean, .field { "\($0.negotiation.enforceWebp)" },
                  "WebP whenever the client accepts it, even where the URL names another format.",
                  details: "WebP whenever the client's Accept has `image/webp`, even where the URL names another "
                      + "format; every answer then varies by Accept. nginx's site must be written with "
                      + "`--enforce webp` so that hits agree.")
        case .enforceAvif:
            .init("ENFORCE_AVIF", imgproxy: true, .boolean, .field { "\($0.negotiation.enforceAvif)" },
                  "AVIF whenever the client accepts it, even where the URL names another format.",
                  details: "AVIF whenever the client's Accept has `image/avif` (before WebP), even where the URL "
                      + "names another format; nginx's site must be written with `--enforce avif`.")
        case .enforceJxl:
            .init("ENFORCE_JXL", imgproxy: true, .boolean, .field { "\($0.negotiation.enforceJxl)" },
                  "JPEG XL whenever the client accepts it, even where the URL names another format.",
                  details: "JPEG XL whenever the client's Accept has `image/jxl` and no format before it in "
                      + "`FORMAT_NEGOTIATION_ORDER`, even where the URL names another format; nginx's site must "
                      + "be written with `--enforce jxl`.")
        case .enableWebpDetection:
            .init("ENABLE_WEBP_DETECTION", imgproxy: true, .boolean, .none,
                  "Deprecated name of AUTO_WEBP, which wins when both are set.")
        case .enableAvifDetection:
            .init("ENABLE_AVIF_DETECTION", imgproxy: true, .boolean, .none,
                  "Deprecated name of AUTO_AVIF, which wins when both are set.")
        case .formatNegotiationOrder:
            .init("FORMAT_NEGOTIATION_ORDER", .text,
                  .field { $0.negotiation.order.map(\.rawValue).joined(separator: ",") },
                  "The order Accept is matched in: avif, jxl and webp, comma-separated, each once.",
                  details: "The order the negotiated formats are matched against the client's Accept: `avif`, "
                      + "`jxl` and `webp`, comma-separated, each once. A client that accepts several gets the "
                      + "first that is on (`AUTO_*`, `ENFORCE_*`). thumbd's own: imgproxy tries JPEG XL first, "
                      + "but at thumbnail sizes AVIF takes fewer bytes at equal quality (bench/quality), so "
                      + "Safari, which accepts both, gets AVIF. nginx's site must be written with the same "
                      + "`--order`.")
        case .bestFormatByDefault:
            .init("BEST_FORMAT_BY_DEFAULT", imgproxy: true, reloads: true, .boolean,
                  .field { "\($0.options.base.bestFormat)" },
                  "The best format for URLs that name none, as if they said f:best; nginx's site needs --best-by-default.",
                  details: "The best format for URLs that name no format, as if each said `f:best`: every "
                      + "candidate the client accepts is encoded and the smallest kept. It wins over `AUTO_*`, whose "
                      + "formats become candidates for the clients that accept them. nginx's site must be written "
                      + "with `--best-by-default` so that it finds the stored files. It saves bytes where another "
                      + "format wins: a flat graphic's lossless palette PNG (with `PNG_QUANTIZE`) took 0.86x the "
                      + "AVIF a browser got without it, at SSIMULACRA2 100 against 89.6; every photo kept its "
                      + "class's own format, for 1.82x (a browser) and 2.82x (a client that accepts neither) that "
                      + "format's render CPU, paid once per thumbnail (`bench/best`). A hit costs nginx 1.07x a "
                      + "named format's (`bench/hit-cost`). See [the URL reference](urls.md).")
        case .bestFormatMaxResolution:
            .init("BEST_FORMAT_MAX_RESOLUTION", imgproxy: true, .decimal(0...1_000),
                  .field { (Double($0.render.bestFormatMaxPixels) / 1_000_000).shortText },
                  "Megapixels of the result above which the best format encodes its first candidate only; 0: no limit.",
                  details: "Megapixels of the result above which the best format encodes only its first candidate "
                      + "(the format the client's Accept picked, else the first preferred), where imgproxy picks "
                      + "one that seems best; 0: every candidate, whatever the size. thumbd's default is 5, as "
                      + "`AUTOQUALITY_MAX_RESOLUTION`'s: each candidate costs an encode of the whole result.")
        case .prometheusBind:
            .init("PROMETHEUS_BIND", imgproxy: true, .text, .described("off"),
                  "host:port of a listener answering GET /metrics, for a Prometheus nginx's site does not allow.",
                  details: "`host:port` (`:9464` for every address) of an HTTP listener of thumbd's own that "
                      + "answers `GET /metrics` with the metrics and every other request with 404, so that a "
                      + "Prometheus on another host can scrape without an `allow` line in nginx's site and "
                      + "without `METRICS_TOKEN`: bind it to an address only Prometheus reaches. See "
                      + "docs/operations.md.")
        case .prometheusNamespace:
            .init("PROMETHEUS_NAMESPACE", imgproxy: true, .text, .field { $0.prometheusNamespace },
                  "First part of every metric's name (thumbd_requests_total); empty: none.",
                  details: "The first part of every metric's name but `process_*`'s: `thumbd_requests_total`; "
                      + "`imgproxy` makes them `imgproxy_requests_total`, as an imgproxy dashboard asks; empty: "
                      + "no prefix, imgproxy's default (`requests_total`).")
        case .metricsToken:
            .init("METRICS_TOKEN", secret: true, reloads: true, .text, .described("none: refused"),
                  "Token /_thumbd/metrics through nginx asks for (Authorization: Bearer); unset, it is refused.",
                  details: "The token `/_thumbd/metrics` through nginx asks for, as `Authorization: Bearer <token>` "
                      + "(at least 16 characters; `openssl rand -hex 32`); unset, that path answers 403. nginx's "
                      + "`allow` lines cannot tell a Prometheus on the host from a reverse proxy on the host, whose "
                      + "clients all arrive from 127.0.0.1. `PROMETHEUS_BIND`'s listener asks for none. See "
                      + "docs/operations.md.")
        }
    }
}

extension Setting {
    /// The setting's name, without THUMBD_ or IMGPROXY_: `MAX_SRC_FILE_SIZE`.
    public var name: String { declaration.name }
    public var environmentNames: [String] { declaration.environmentNames }
    /// Settings imgproxy does not have (or has with another meaning).
    public var isThumbdOwn: Bool { !declaration.imgproxy }
}

extension Setting {
    /// The help with its environment names, default and range: `Worker threads. [THUMBD_WORKERS,
    /// IMGPROXY_WORKERS; default 2 x cores; 1 to 1024]`.
    public var helpLine: String {
        let declaration = declaration
        var facts = [declaration.environmentNames.joined(separator: ", ")]
        if let text = declaration.defaultText { facts.append("default \(text)") }
        if let range = declaration.rangeText { facts.append(range) }
        facts += declaration.marks
        return "\(declaration.help) [\(facts.joined(separator: "; "))]"
    }
}

/// `jpeg=80,webp=79,avif=63` as the per-format quality settings are written: lossy formats only,
/// in their declared order.
private func formatQualityList(_ qualities: [ImageFormat: Int]) -> String {
    ImageFormat.allCases.filter(\.isLossy).compactMap { format in qualities[format].map { "\(format.rawValue)=\($0)" } }
        .joined(separator: ",")
}
