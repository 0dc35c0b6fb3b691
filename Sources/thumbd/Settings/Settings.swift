import Logging
import ThumbCache
import ThumbFetch
import ThumbImaging
import ThumbJobs
import ThumbRequest
import ThumbRuntime
import ThumbServer

/// Everything thumbd is told at start, typed per area, each default written on its field.
/// Components take their part in `init` and never read the environment themselves.
public struct Settings: Sendable {
    /// The settings file (CONFIG) the rest were read from, if one was named.
    public var settingsFile: String?
    /// Where and how the FastCGI side listens: its address, socket group, workers, params timeout.
    public var server = FastCGIServer.Settings()
    public var cacheRoot = CacheSettings.defaultRoot
    public var cache = CacheSettings()
    public var logLevel = Logger.Level.info
    public var logFormat = LogFormat.pretty
    /// Keys and salts, trusted signatures or insecure mode, as given; `signing` is what they make.
    public var signingSettings = SigningSettings()
    /// Prepended to sources without a scheme.
    public var baseURL: String?
    /// The directory `local:///path` sources are read under; nil turns local sources off.
    public var localFileSystemRoot: String?
    /// WebP or AVIF for URLs without a format, by the client's Accept header.
    public var negotiation = FormatNegotiation()
    public var fetch = OriginFetcher.Configuration()
    public var limits = ConcurrencyLimits()
    public var render = Renderer.Configuration()
    /// What a request whose source fails gets instead of an error, if anything.
    public var fallback = FallbackImage.Settings()
    /// The directory holding thumbd's ImageMagick policy.xml (deploy/policy.xml).
    public var magickPolicyDirectory = "/etc/thumbd"
    /// How URL options are read: presets, presets-only URLs, security options.
    public var options = OptionParser()
    /// Where a listener of its own answers GET /metrics (PROMETHEUS_BIND); nil: only through nginx.
    public var prometheusBind: ListenAddress?
    /// The first part of every metric's name but process_*'s (PROMETHEUS_NAMESPACE); empty: none.
    public var prometheusNamespace = "thumbd"
    /// The bearer token `/_thumbd/metrics` through nginx asks for (METRICS_TOKEN); nil: refused.
    public var metricsToken: String?

    /// Each setting's value as it was given (flag, environment or file), by name, before it was
    /// read: what a reload compares to tell which settings changed. Secret ones included: never
    /// log it.
    public var given: [String: String] = [:]
    /// The settings' flags this process was given, by name: a reload reads the rest again.
    public var flags: [String: String] = [:]

    public init() {}

    public var listen: ListenAddress { server.address }
    /// FastCGI worker threads; each request runs on one from start to end.
    public var workers: Int { server.workers }
    /// No key and not insecure: no URL verifies (serving refuses to start so, see `signingProblem`).
    public var signing: SignatureVerifier { signingSettings.verifier }
    /// URL prefixes a source, and every redirect it takes, must start with; empty allows every source.
    public var allowedSources: SourceAllowList { fetch.allowedSources }

    /// Why URLs cannot be served or signed as configured: neither a key nor insecure mode.
    public var signingProblem: String? {
        guard !signing.isConfigured else { return nil }
        return "no KEY and SALT: set them (hex) to sign URLs, or INSECURE=true to serve unsigned URLs to anyone"
    }

    /// The parser of request paths: signing, base URL, presets, presets-only mode and security
    /// options.
    public var requestPathParser: RequestPathParser {
        RequestPathParser(verifier: signing, baseURL: baseURL, options: options, policy: Renderer.encodePolicy)
    }

    /// The reader for `local://` sources, nil when they are off: a caller holding nil answers them
    /// with `LocalFileReader.notEnabled`. Local files obey the same byte limit as downloads.
    public var localFileReader: LocalFileReader? {
        localFileSystemRoot.map { LocalFileReader(root: $0, maxBytes: fetch.maxBytes) }
    }
}
