import ThumbRequest

/// Every setting imgproxy documents (its configuration docs for 3.31, 4.0 and the next release)
/// that thumbd has no setting for, and what thumbd does when an environment sets it: nothing is
/// silently ignored. A setting thumbd honours is a `Setting` whose declaration names it (its
/// `imgproxyName`); the rest are here. docs/configuration.md's imgproxy table is written from
/// both, so it cannot drift.
enum ImgproxySettings {
    /// What thumbd does with an imgproxy setting it has none of its own for.
    enum Verdict: Equatable {
        /// thumbd always behaves as imgproxy does with this value: accepted with it, refused
        /// (with why) with any other. Booleans compare as imgproxy reads them.
        case sameAsThumbd(String, otherwise: String)
        case refused(String)
    }

    /// Every IMGPROXY_ name imgproxy's docs describe, without the prefix.
    static let documented: [String] = [
        "ABS_ALLOWED_BUCKETS", "ABS_DENIED_BUCKETS", "ABS_ENDPOINT", "ABS_KEY", "ABS_NAME", "AIRBRAKE_ENVIRONMENT",
        "AIRBRAKE_PROJECT_ID", "AIRBRAKE_PROJECT_KEY", "ALLOWED_INFO_OPTIONS", "ALLOWED_PROCESSING_OPTIONS",
        "ALLOWED_SOURCES", "ALLOW_BYPASS_CACHE", "ALLOW_LINK_LOCAL_SOURCE_ADDRESSES",
        "ALLOW_LOOPBACK_SOURCE_ADDRESSES", "ALLOW_ORIGIN", "ALLOW_PRIVATE_SOURCE_ADDRESSES",
        "ALLOW_SECURITY_OPTIONS", "ALWAYS_RASTERIZE_SVG", "ARGUMENTS_SEPARATOR", "AUTOQUALITY_ALLOWED_ERROR",
        "AUTOQUALITY_AVIF_NET", "AUTOQUALITY_FORMAT_MAX", "AUTOQUALITY_FORMAT_MIN", "AUTOQUALITY_JPEG_NET",
        "AUTOQUALITY_JXL_NET", "AUTOQUALITY_MAX", "AUTOQUALITY_MAX_RESOLUTION", "AUTOQUALITY_METHOD",
        "AUTOQUALITY_MIN", "AUTOQUALITY_ML_CPU_PINNING", "AUTOQUALITY_ML_EXECUTION_MODE",
        "AUTOQUALITY_ML_INFERENCE_NUM_STREAMS", "AUTOQUALITY_ML_INFERENCE_NUM_THREADS", "AUTOQUALITY_TARGET",
        "AUTOQUALITY_WEBP_NET", "AUTO_AVIF", "AUTO_JXL", "AUTO_ROTATE", "AUTO_WEBP", "AVIF_SPEED", "AVIF_SUBSAMPLE",
        "BASE64_URL_INCLUDES_FILENAME", "BASE_URL", "BEST_FORMAT_ALLOW_SKIPS", "BEST_FORMAT_BY_DEFAULT",
        "BEST_FORMAT_COMPLEXITY_THRESHOLD", "BEST_FORMAT_MAX_RESOLUTION", "BIND",
        "BUFFER_POOL_CALIBRATION_THRESHOLD", "BUGSNAG_KEY", "BUGSNAG_STAGE", "CACHE_ABS_ENDPOINT", "CACHE_ABS_KEY",
        "CACHE_ABS_NAME", "CACHE_BUCKET", "CACHE_CONTROL_PASSTHROUGH", "CACHE_FS_ROOT", "CACHE_GCS_ENDPOINT",
        "CACHE_GCS_KEY", "CACHE_KEY_COOKIES", "CACHE_KEY_HEADERS", "CACHE_PATH_PREFIX", "CACHE_REPORT_ERRORS",
        "CACHE_S3_ASSUME_ROLE_ARN", "CACHE_S3_ASSUME_ROLE_EXTERNAL_ID", "CACHE_S3_ENDPOINT",
        "CACHE_S3_ENDPOINT_USE_PATH_STYLE", "CACHE_S3_REGION", "CACHE_S3_USE_DECRYPTION_CLIENT",
        "CACHE_SWIFT_API_KEY", "CACHE_SWIFT_AUTH_URL", "CACHE_SWIFT_AUTH_VERSION",
        "CACHE_SWIFT_CONNECT_TIMEOUT_SECONDS", "CACHE_SWIFT_DOMAIN", "CACHE_SWIFT_TENANT",
        "CACHE_SWIFT_TIMEOUT_SECONDS", "CACHE_SWIFT_USERNAME", "CACHE_TAGS_FORMAT", "CACHE_USE",
        "CLASSIFICATION_CLASSES", "CLASSIFICATION_CPU_PINNING", "CLASSIFICATION_EXECUTION_MODE",
        "CLASSIFICATION_INFERENCE_NUM_STREAMS", "CLASSIFICATION_INFERENCE_NUM_THREADS", "CLASSIFICATION_LAYOUT",
        "CLASSIFICATION_NET", "CLASSIFICATION_NET_SIZE", "CLASSIFICATION_NORMALIZATION", "CLASSIFICATION_THRESHOLD",
        "CLIENT_KEEP_ALIVE_TIMEOUT", "CLOUD_WATCH_NAMESPACE", "CLOUD_WATCH_REGION", "CLOUD_WATCH_SERVICE_NAME",
        "COLOR_PROFILES_DIR", "CONCURRENCY", "COOKIE_BASE_URL", "COOKIE_PASSTHROUGH", "COOKIE_PASSTHROUGH_ALL",
        "CUSTOM_HEADERS_SEPARATOR", "CUSTOM_REQUEST_HEADERS", "CUSTOM_RESPONSE_HEADERS", "DATADOG_ENABLE",
        "DATADOG_ENABLE_ADDITIONAL_METRICS", "DATADOG_PROPAGATE_EXTERNAL", "DEVELOPMENT_ERRORS_MODE",
        "DISABLE_SHRINK_ON_LOAD", "DOWNLOAD_BUFFER_SIZE", "DOWNLOAD_TIMEOUT", "ENABLE_AVIF_DETECTION",
        "ENABLE_CLIENT_HINTS", "ENABLE_DEBUG_HEADERS", "ENABLE_RAW_FORMATS", "ENABLE_VIDEO_THUMBNAILS",
        "ENABLE_WEBP_DETECTION", "ENFORCE_AVIF", "ENFORCE_JXL", "ENFORCE_THUMBNAIL", "ENFORCE_WEBP", "ETAG_BUSTER",
        "FAIL_ON_DEPRECATION", "FALLBACK_IMAGES_CACHE_SIZE", "FALLBACK_IMAGE_DATA", "FALLBACK_IMAGE_HTTP_CODE",
        "FALLBACK_IMAGE_PATH", "FALLBACK_IMAGE_PREPROCESS_URL", "FALLBACK_IMAGE_TTL", "FALLBACK_IMAGE_URL",
        "FORMAT_QUALITY", "FREE_MEMORY_INTERVAL", "GCS_ALLOWED_BUCKETS", "GCS_DENIED_BUCKETS", "GCS_ENDPOINT",
        "GCS_KEY", "GRACEFUL_STOP_TIMEOUT", "HEALTH_CHECK_MESSAGE", "HEALTH_CHECK_PATH", "HONEYBADGER_ENV",
        "HONEYBADGER_KEY", "IGNORE_SSL_VERIFICATION", "INFO_ONLY_PRESETS", "INFO_PRESETS", "INFO_PRESETS_PATH",
        "JPEG_NO_SUBSAMPLE", "JPEG_OPTIMIZE_SCANS", "JPEG_OVERSHOOT_DERINGING", "JPEG_PROGRESSIVE",
        "JPEG_QUANT_TABLE", "JPEG_TRELLIS_QUANT", "JXL_EFFORT", "KEEP_ALIVE_TIMEOUT", "KEEP_COPYRIGHT", "KEY",
        "LAST_MODIFIED_BUSTER", "LICENSE_DEVELOPMENT_MODE", "LICENSE_KEY", "LOCAL_FILESYSTEM_ROOT", "LOG_FORMAT",
        "LOG_LEVEL", "MALLOC", "MAX_ANIMATION_FRAMES", "MAX_ANIMATION_FRAME_RESOLUTION", "MAX_CHAINED_PIPELINES",
        "MAX_CLIENTS", "MAX_REDIRECTS", "MAX_RESULT_DIMENSION", "MAX_SRC_FILE_SIZE", "MAX_SRC_RESOLUTION",
        "MAX_SVG_CHECK_BYTES", "ML_CPU_PINNING", "ML_EXECUTION_MODE", "ML_INFERENCE_NUM_THREADS", "ML_NUM_STREAMS",
        "NETWORK", "NEW_RELIC_APP_NAME", "NEW_RELIC_KEY", "NEW_RELIC_LABELS", "NEW_RELIC_PROPAGATE_EXTERNAL",
        "OBJECT_DETECTION_CLASSES", "OBJECT_DETECTION_CONFIDENCE_THRESHOLD", "OBJECT_DETECTION_CONFIG",
        "OBJECT_DETECTION_CPU_PINNING", "OBJECT_DETECTION_EXECUTION_MODE", "OBJECT_DETECTION_FALLBACK_TO_SMART_CROP",
        "OBJECT_DETECTION_GRAVITY_MODE", "OBJECT_DETECTION_INFERENCE_NUM_STREAMS",
        "OBJECT_DETECTION_INFERENCE_NUM_THREADS", "OBJECT_DETECTION_NET", "OBJECT_DETECTION_NET_SIZE",
        "OBJECT_DETECTION_NET_TYPE", "OBJECT_DETECTION_NMS_THRESHOLD", "OBJECT_DETECTION_SWAP_RB",
        "OBJECT_DETECTION_WEIGHTS", "ONLY_PRESETS", "OPEN_TELEMETRY_CLIENT_CERT", "OPEN_TELEMETRY_CLIENT_KEY",
        "OPEN_TELEMETRY_ENABLE", "OPEN_TELEMETRY_ENABLE_LOGS", "OPEN_TELEMETRY_ENABLE_METRICS",
        "OPEN_TELEMETRY_PROPAGATE_EXTERNAL", "OPEN_TELEMETRY_SERVER_CERT", "OPEN_TELEMETRY_TRACE_ID_GENERATOR",
        "PATH_PREFIX", "PDF_NO_BACKGROUND", "PNG_INTERLACED", "PNG_QUANTIZATION_COLORS", "PNG_QUANTIZE",
        "PNG_UNLIMITED", "PREFERRED_FORMATS", "PRESERVE_HDR", "PRESETS", "PRESETS_PATH", "PRESETS_SEPARATOR",
        "PROMETHEUS_BIND", "PROMETHEUS_NAMESPACE", "QUALITY", "READ_REQUEST_TIMEOUT", "READ_TIMEOUT",
        "REPORT_DOWNLOADING_ERRORS", "REQUESTS_QUEUE_SIZE", "REQUEST_HEADERS_PASSTHROUGH",
        "RESPONSE_HEADERS_PASSTHROUGH", "RETURN_ATTACHMENT", "S3_ACCESS_POINTS", "S3_ALLOWED_BUCKETS",
        "S3_ASSUME_ROLE_ARN", "S3_ASSUME_ROLE_EXTERNAL_ID", "S3_DENIED_BUCKETS", "S3_ENDPOINT",
        "S3_ENDPOINT_USE_PATH_STYLE", "S3_REGION", "S3_USE_DECRYPTION_CLIENT", "SALT", "SANITIZE_SVG", "SECRET",
        "SENTRY_DSN", "SENTRY_ENVIRONMENT", "SENTRY_RELEASE", "SERVER_NAME", "SET_CANONICAL_HEADER",
        "SIGNATURE_SIZE", "SKIP_PROCESSING_FORMATS", "SMART_CROP_ADVANCED", "SMART_CROP_ADVANCED_MODE",
        "SMART_CROP_FACE_DETECTION", "SOURCE_URL_ENCRYPTION_KEY", "SOURCE_URL_QUERY_SEPARATOR", "SO_REUSEPORT",
        "STRIP_COLOR_PROFILE", "STRIP_METADATA", "STRIP_METADATA_DPI", "SVG_UNLIMITED", "SWIFT_ALLOWED_BUCKETS",
        "SWIFT_API_KEY", "SWIFT_AUTH_URL", "SWIFT_AUTH_VERSION", "SWIFT_DENIED_BUCKETS", "SWIFT_DOMAIN",
        "SWIFT_TENANT", "SWIFT_USERNAME", "SYSLOG_ADDRESS", "SYSLOG_ENABLE", "SYSLOG_LEVEL", "SYSLOG_NETWORK",
        "SYSLOG_TAG", "TIMEOUT", "TRUSTED_SIGNATURES", "TTL", "UNSHARP_MASKING_DIVIDER", "UNSHARP_MASKING_MODE",
        "UNSHARP_MASKING_WEIGHT", "URL_REPLACEMENTS", "USER_AGENT", "USE_ABS", "USE_ETAG", "USE_GCS",
        "USE_LAST_MODIFIED", "USE_LINEAR_COLORSPACE", "USE_S3", "USE_SWIFT", "VIDEO_THUMBNAIL_KEYFRAMES",
        "VIDEO_THUMBNAIL_MAX_ANALYZE_DURATION", "VIDEO_THUMBNAIL_PROBE_SIZE", "VIDEO_THUMBNAIL_SECOND",
        "VIDEO_THUMBNAIL_TILE_AUTO_KEYFRAMES", "WATERMARKS_CACHE_SIZE", "WATERMARK_DATA", "WATERMARK_OPACITY",
        "WATERMARK_PATH", "WATERMARK_PREPROCESS_URL", "WATERMARK_URL", "WEBP_COMPRESSION", "WEBP_EFFORT",
        "WEBP_PRESET", "WEBP_SMART_SUBSAMPLE", "WORKERS", "WRITE_RESPONSE_TIMEOUT", "WRITE_TIMEOUT"
    ]

    static func verdict(_ name: String) -> Verdict? {
        verdicts[name]
    }

    private static let verdicts: [String: Verdict] = {
        var verdicts: [String: Verdict] = [:]
        for (verdict, names) in groups {
            for name in names { verdicts[name] = verdict }
        }
        return verdicts
    }()

    private static let nginxServes = "nginx takes the HTTP connections and serves the thumbnails: set it in nginx's site"
    private static let googleThroughS3 = "gs:// sources are not supported: read Google Cloud Storage as s3:// sources "
        + "through its XML API (S3_ENDPOINT=https://storage.googleapis.com, HMAC keys as S3_ACCESS_KEY_ID and "
        + "S3_SECRET_ACCESS_KEY)"
    private static let headersAreNginx = "nginx sends a hit's headers: add them to the site (add_header)"

    // swiftlint:disable:next closure_body_length
    private static let groups: [(Verdict, [String])] = [
        (.refused(nginxServes + "; thumbd listens for FastCGI at LISTEN"), [
            "BIND", "NETWORK", "SO_REUSEPORT", "SERVER_NAME", "MAX_CLIENTS", "KEEP_ALIVE_TIMEOUT",
            "READ_REQUEST_TIMEOUT", "WRITE_RESPONSE_TIMEOUT", "READ_TIMEOUT", "WRITE_TIMEOUT",
        ]),
        (.refused(headersAreNginx), [
            "CUSTOM_RESPONSE_HEADERS", "CUSTOM_HEADERS_SEPARATOR", "RESPONSE_HEADERS_PASSTHROUGH", "ALLOW_ORIGIN",
        ]),
        (.sameAsThumbd("false", otherwise: headersAreNginx), [
            "CACHE_CONTROL_PASSTHROUGH", "SET_CANONICAL_HEADER", "ENABLE_DEBUG_HEADERS",
        ]),
        (.sameAsThumbd("\(ThumbnailLifetime.seconds)", otherwise: "thumbnails are kept a year (Cache-Control: "
            + "\(ThumbnailLifetime.cacheControl)), as nginx's site says for hits; a URL's exp shortens it"), ["TTL"]),
        (.sameAsThumbd("true", otherwise: "nginx sends ETag and Last-Modified for the thumbnails it serves (etag off; in "
            + "the site stops the first)"), ["USE_ETAG", "USE_LAST_MODIFIED"]),
        (.refused("a thumbnail's URL names it: change the URL (cachebuster, cb) to make a new one"),
         ["ETAG_BUSTER", "LAST_MODIFIED_BUSTER"]),
        (.refused("thumbd sends origins no client headers; SOURCE_HEADERS adds headers per source prefix, so a token "
            + "goes to its own origin only"), ["CUSTOM_REQUEST_HEADERS", "REQUEST_HEADERS_PASSTHROUGH"]),
        (.sameAsThumbd("false", otherwise: "thumbd passes no cookies to origins"),
         ["COOKIE_PASSTHROUGH", "COOKIE_PASSTHROUGH_ALL"]),
        (.refused("thumbd passes no cookies to origins"), ["COOKIE_BASE_URL"]),
        (.refused("thumbd answers every request it accepted before it stops; systemd's TimeoutStopSec bounds the wait"),
         ["GRACEFUL_STOP_TIMEOUT"]),
        (.refused("libcurl keeps origin connections while thumbd reuses them; it is not configurable"),
         ["CLIENT_KEEP_ALIVE_TIMEOUT"]),
        (.refused("imgproxy's old name for WORKERS, which thumbd reads as MAX_CONCURRENT_RENDERS"), ["CONCURRENCY"]),
        (.sameAsThumbd("", otherwise: "thumbd's URLs start at the site's root; nginx's location decides where the site "
            + "lives"), ["PATH_PREFIX"]),
        (.sameAsThumbd("", otherwise: "thumbd answers /health (alive) and /ready (can serve) on its own paths"),
         ["HEALTH_CHECK_PATH"]),
        (.refused("thumbd's /health answers a fixed text"), ["HEALTH_CHECK_MESSAGE"]),
        (.refused("thumbd is reached over FastCGI from nginx only: guard the site in nginx (allow, auth_request)"),
         ["SECRET"]),
        (.refused("encrypted source URLs (/enc/) are not supported"), ["SOURCE_URL_ENCRYPTION_KEY"]),
        (.refused("thumbd has no /info endpoint"),
         ["ALLOWED_INFO_OPTIONS", "INFO_PRESETS", "INFO_PRESETS_PATH", "INFO_ONLY_PRESETS"]),
        (.refused("thumbd has no per-option allow-list; ONLY_PRESETS limits URLs to presets"),
         ["ALLOWED_PROCESSING_OPTIONS"]),
        (.refused("chained pipelines are not supported"), ["MAX_CHAINED_PIPELINES"]),
        (.refused("thumbd counts every frame's pixels against MAX_SRC_RESOLUTION"), ["MAX_ANIMATION_FRAME_RESOLUTION"]),
        (.sameAsThumbd("false", otherwise: "thumbd keeps the decoders' own limits"), ["PNG_UNLIMITED", "SVG_UNLIMITED"]),
        (.refused("SVG sources are not decoded"), ["SANITIZE_SVG", "ALWAYS_RASTERIZE_SVG", "MAX_SVG_CHECK_BYTES"]),
        (.sameAsThumbd("false", otherwise: "thumbd always verifies origins' certificates"), ["IGNORE_SSL_VERIFICATION"]),
        (.sameAsThumbd("false", otherwise: "a thumbnail is a static file nginx serves; no URL can bypass it"),
         ["ALLOW_BYPASS_CACHE"]),
        (.refused("thumbd's encoders are set by quality (and JPEG's chroma by SUBSAMPLE_BELOW)"), [
            "JPEG_PROGRESSIVE", "JPEG_TRELLIS_QUANT", "JPEG_OVERSHOOT_DERINGING",
            "JPEG_OPTIMIZE_SCANS", "JPEG_QUANT_TABLE", "PNG_INTERLACED",
            "WEBP_COMPRESSION", "WEBP_PRESET",
        ]),
        (.sameAsThumbd("false", otherwise: "SUBSAMPLE_BELOW=0 keeps JPEG's chroma whole at every quality"),
         ["JPEG_NO_SUBSAMPLE"]),
        (.sameAsThumbd("true", otherwise: "thumbd's WebP always converts to YUV the sharp way (smart subsampling): "
            + "fewer bytes at equal quality"), ["WEBP_SMART_SUBSAMPLE"]),
        (.refused("autoquality's ml method needs neural network models, which thumbd does not run; dssim is the "
            + "same search without them"), [
            "AUTOQUALITY_JPEG_NET", "AUTOQUALITY_WEBP_NET", "AUTOQUALITY_AVIF_NET", "AUTOQUALITY_JXL_NET",
            "AUTOQUALITY_ML_INFERENCE_NUM_STREAMS",
            "AUTOQUALITY_ML_INFERENCE_NUM_THREADS", "AUTOQUALITY_ML_EXECUTION_MODE", "AUTOQUALITY_ML_CPU_PINNING",
        ]),
        (.refused("the best format measures no complexity: every candidate is encoded at the quality asked and "
            + "the smallest kept"), ["BEST_FORMAT_COMPLEXITY_THRESHOLD"]),
        (.sameAsThumbd("false", otherwise: "the best format never skips processing: SKIP_PROCESSING_FORMATS and "
            + "skp apply as for any format"), ["BEST_FORMAT_ALLOW_SKIPS"]),
        (.sameAsThumbd("false", otherwise: "thumbd's URLs carry dpr and width: a static file cannot vary by client "
            + "hints"), ["ENABLE_CLIENT_HINTS"]),
        (.sameAsThumbd("false", otherwise: "video sources are not supported"), ["ENABLE_VIDEO_THUMBNAILS"]),
        (.refused("video sources are not supported"), [
            "VIDEO_THUMBNAIL_SECOND", "VIDEO_THUMBNAIL_KEYFRAMES", "VIDEO_THUMBNAIL_TILE_AUTO_KEYFRAMES",
            "VIDEO_THUMBNAIL_PROBE_SIZE", "VIDEO_THUMBNAIL_MAX_ANALYZE_DURATION",
        ]),
        (.sameAsThumbd("false", otherwise: "camera RAW sources are not supported"), ["ENABLE_RAW_FORMATS"]),
        (.sameAsThumbd("false", otherwise: "thumbnails are 8-bit sRGB"), ["PRESERVE_HDR"]),
        (.refused("give the watermark as WATERMARK_PATH or WATERMARK_DATA"), ["WATERMARK_URL"]),
        (.refused("per-URL watermarks are not supported"), ["WATERMARK_PREPROCESS_URL", "WATERMARKS_CACHE_SIZE"]),
        (.refused("per-URL fallback images are not supported"),
         ["FALLBACK_IMAGE_PREPROCESS_URL", "FALLBACK_IMAGES_CACHE_SIZE"]),
        (.refused("thumbd sharpens only where a URL asks (sharpen)"),
         ["UNSHARP_MASKING_MODE", "UNSHARP_MASKING_WEIGHT", "UNSHARP_MASKING_DIVIDER"]),
        (.sameAsThumbd("false", otherwise: "thumbd's smart crop looks at edges and colour; face and object detection "
            + "are not supported"), ["SMART_CROP_ADVANCED", "SMART_CROP_FACE_DETECTION"]),
        (.refused("object detection and classification are not supported"), [
            "SMART_CROP_ADVANCED_MODE", "ML_NUM_STREAMS", "ML_INFERENCE_NUM_THREADS", "ML_EXECUTION_MODE",
            "ML_CPU_PINNING", "OBJECT_DETECTION_NET", "OBJECT_DETECTION_NET_TYPE", "OBJECT_DETECTION_CLASSES",
            "OBJECT_DETECTION_NET_SIZE", "OBJECT_DETECTION_CONFIDENCE_THRESHOLD", "OBJECT_DETECTION_NMS_THRESHOLD",
            "OBJECT_DETECTION_SWAP_RB", "OBJECT_DETECTION_FALLBACK_TO_SMART_CROP", "OBJECT_DETECTION_GRAVITY_MODE",
            "OBJECT_DETECTION_INFERENCE_NUM_STREAMS", "OBJECT_DETECTION_INFERENCE_NUM_THREADS",
            "OBJECT_DETECTION_EXECUTION_MODE", "OBJECT_DETECTION_CPU_PINNING", "OBJECT_DETECTION_CONFIG",
            "OBJECT_DETECTION_WEIGHTS", "CLASSIFICATION_NET", "CLASSIFICATION_CLASSES", "CLASSIFICATION_NET_SIZE",
            "CLASSIFICATION_THRESHOLD", "CLASSIFICATION_NORMALIZATION", "CLASSIFICATION_LAYOUT",
            "CLASSIFICATION_INFERENCE_NUM_STREAMS", "CLASSIFICATION_INFERENCE_NUM_THREADS",
            "CLASSIFICATION_EXECUTION_MODE", "CLASSIFICATION_CPU_PINNING",
        ]),
        (.sameAsThumbd("", otherwise: "thumbd's cache is the directory nginx serves (CACHE_ROOT); imgproxy's internal "
            + "cache is not supported"), ["CACHE_USE"]),
        (.refused("thumbd's cache is the directory nginx serves (CACHE_ROOT); imgproxy's internal cache is not "
            + "supported"), [
            "CACHE_PATH_PREFIX", "CACHE_BUCKET", "CACHE_KEY_HEADERS", "CACHE_KEY_COOKIES", "CACHE_REPORT_ERRORS",
            "CACHE_TAGS_FORMAT", "CACHE_FS_ROOT", "CACHE_S3_REGION", "CACHE_S3_ENDPOINT", "CACHE_S3_ENDPOINT_USE_PATH_STYLE",
            "CACHE_S3_USE_DECRYPTION_CLIENT", "CACHE_S3_ASSUME_ROLE_ARN", "CACHE_S3_ASSUME_ROLE_EXTERNAL_ID",
            "CACHE_GCS_KEY", "CACHE_GCS_ENDPOINT", "CACHE_ABS_NAME", "CACHE_ABS_KEY", "CACHE_ABS_ENDPOINT",
            "CACHE_SWIFT_USERNAME", "CACHE_SWIFT_API_KEY", "CACHE_SWIFT_AUTH_URL", "CACHE_SWIFT_AUTH_VERSION",
            "CACHE_SWIFT_TENANT", "CACHE_SWIFT_DOMAIN", "CACHE_SWIFT_TIMEOUT_SECONDS",
            "CACHE_SWIFT_CONNECT_TIMEOUT_SECONDS",
        ]),
        (.refused("S3 client-side decryption is not supported: thumbd reads objects as S3 stores them"),
         ["S3_USE_DECRYPTION_CLIENT"]),
        (.refused("assuming a role is not supported: give the role's credentials (S3_ACCESS_KEY_ID, the environment, a "
            + "profile)"), ["S3_ASSUME_ROLE_ARN", "S3_ASSUME_ROLE_EXTERNAL_ID"]),
        (.refused("S3 access points are not supported: name the bucket"), ["S3_ACCESS_POINTS"]),
        (.sameAsThumbd("false", otherwise: googleThroughS3), ["USE_GCS"]),
        (.refused(googleThroughS3), ["GCS_KEY", "GCS_ENDPOINT", "GCS_ALLOWED_BUCKETS", "GCS_DENIED_BUCKETS"]),
        (.sameAsThumbd("false", otherwise: "Azure Blob Storage sources are not supported"), ["USE_ABS"]),
        (.refused("Azure Blob Storage sources are not supported"),
         ["ABS_NAME", "ABS_KEY", "ABS_ENDPOINT", "ABS_ALLOWED_BUCKETS", "ABS_DENIED_BUCKETS"]),
        (.sameAsThumbd("false", otherwise: "OpenStack Swift sources are not supported"), ["USE_SWIFT"]),
        (.refused("OpenStack Swift sources are not supported"), [
            "SWIFT_USERNAME", "SWIFT_API_KEY", "SWIFT_AUTH_URL", "SWIFT_AUTH_VERSION", "SWIFT_TENANT", "SWIFT_DOMAIN",
            "SWIFT_ALLOWED_BUCKETS", "SWIFT_DENIED_BUCKETS",
        ]),
        (.refused("URL replacements are not supported; BASE_URL is put before sources that do not start with it"),
         ["URL_REPLACEMENTS"]),
        (.sameAsThumbd("false", otherwise: "a base64 source is the URL alone"), ["BASE64_URL_INCLUDES_FILENAME"]),
        (.refused("a plain source's query is part of its URL, escaped as %3F"), ["SOURCE_URL_QUERY_SEPARATOR"]),
        (.sameAsThumbd("false", otherwise: "Datadog is not supported; scrape /metrics"), ["DATADOG_ENABLE"]),
        (.sameAsThumbd("false", otherwise: "OpenTelemetry is not supported; scrape /metrics"), ["OPEN_TELEMETRY_ENABLE"]),
        (.refused("only Prometheus metrics (/metrics) are supported"), [
            "NEW_RELIC_KEY", "NEW_RELIC_APP_NAME", "NEW_RELIC_LABELS", "NEW_RELIC_PROPAGATE_EXTERNAL",
            "DATADOG_ENABLE_ADDITIONAL_METRICS", "DATADOG_PROPAGATE_EXTERNAL", "OPEN_TELEMETRY_ENABLE_METRICS",
            "OPEN_TELEMETRY_ENABLE_LOGS", "OPEN_TELEMETRY_SERVER_CERT", "OPEN_TELEMETRY_CLIENT_CERT",
            "OPEN_TELEMETRY_CLIENT_KEY", "OPEN_TELEMETRY_TRACE_ID_GENERATOR", "OPEN_TELEMETRY_PROPAGATE_EXTERNAL",
            "CLOUD_WATCH_SERVICE_NAME", "CLOUD_WATCH_NAMESPACE", "CLOUD_WATCH_REGION",
        ]),
        (.refused("error reporting services are not supported; errors go to the log"), [
            "REPORT_DOWNLOADING_ERRORS", "BUGSNAG_KEY", "BUGSNAG_STAGE", "HONEYBADGER_KEY", "HONEYBADGER_ENV",
            "SENTRY_DSN", "SENTRY_ENVIRONMENT", "SENTRY_RELEASE", "AIRBRAKE_PROJECT_ID", "AIRBRAKE_PROJECT_KEY",
            "AIRBRAKE_ENVIRONMENT",
        ]),
        (.sameAsThumbd("false", otherwise: "errors name their cause in the log; answers say it in a line"),
         ["DEVELOPMENT_ERRORS_MODE"]),
        (.sameAsThumbd("false", otherwise: "thumbd logs to stderr; the journal forwards to syslog"), ["SYSLOG_ENABLE"]),
        (.refused("thumbd logs to stderr; the journal forwards to syslog"),
         ["SYSLOG_LEVEL", "SYSLOG_NETWORK", "SYSLOG_ADDRESS", "SYSLOG_TAG"]),
        (.refused("thumbd needs no license"), ["LICENSE_KEY", "LICENSE_DEVELOPMENT_MODE"]),
        (.refused("thumbd's memory is bounded by SOURCE_MEMORY_CACHE_SIZE and MAX_CONCURRENT_RENDERS"), [
            "DOWNLOAD_BUFFER_SIZE", "FREE_MEMORY_INTERVAL", "BUFFER_POOL_CALIBRATION_THRESHOLD", "MALLOC",
        ]),
        (.sameAsThumbd(":", otherwise: "option arguments are separated by :"), ["ARGUMENTS_SEPARATOR"]),
        (.sameAsThumbd(",", otherwise: "presets are separated by ,"), ["PRESETS_SEPARATOR"]),
        (.refused("give presets in PRESETS, on the command line or in the settings file (--config)"), ["PRESETS_PATH"]),
        (.sameAsThumbd("false", otherwise: "thumbd scales in sRGB"), ["USE_LINEAR_COLORSPACE"]),
        (.sameAsThumbd("false", otherwise: "thumbd always decodes at the smallest size the thumbnail allows"),
         ["DISABLE_SHRINK_ON_LOAD"]),
        (.refused("PDF sources are not decoded"), ["PDF_NO_BACKGROUND"]),
        (.sameAsThumbd("false", otherwise: "thumbd decodes the image, not a thumbnail embedded in it"),
         ["ENFORCE_THUMBNAIL"]),
        (.refused("thumbd writes no resolution into stripped images"), ["STRIP_METADATA_DPI"]),
        (.refused("thumbd converts to sRGB with its built-in profile"), ["COLOR_PROFILES_DIR"]),
        (.sameAsThumbd("false", otherwise: "thumbd accepts imgproxy's deprecated options and settings"),
         ["FAIL_ON_DEPRECATION"]),
    ]
}
