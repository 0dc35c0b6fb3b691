import Foundation
import Logging
import ThumbCache
import ThumbFetch
import ThumbImaging
import ThumbJobs
import ThumbRequest
import ThumbRuntime
import ThumbServer

/// Every setting thumbd reads: its own (the settings file, logging, the cache's root, metrics)
/// and each stage's table, joined. The loader, the flags, `--help`, docs/configuration.md and the
/// man page all read this one list.
extension Settings {
    public static let table = SettingTable(settings: own)
        + FastCGIServer.Settings.table(at: \.server)
        + CacheSettings.table(at: \.cache)
        + SigningSettings.table(at: \.signingSettings)
        + OriginFetcher.Configuration.table(at: \.fetch)
        + S3Settings.table(at: \.fetch.s3)
        + ConcurrencyLimits.table(at: \.limits)
        + OptionParser.table(at: \.options)
        + FormatNegotiation.table(at: \.negotiation)
        + Renderer.Configuration.table(at: \.render)
        + FallbackImage.Settings.table(at: \.fallback)

    /// Every setting, in the order the docs list them.
    public static var declared: [Setting<Settings>] { table.settings }

    /// The settings as made with `init()`, whose fields hold the defaults the docs show.
    static let defaults = Settings()

    private static let byName = Dictionary(uniqueKeysWithValues: declared.map { ($0.name, $0) })

    /// The setting of this name (without THUMBD_ or IMGPROXY_); a name no setting has is a
    /// programming error.
    public static func setting(_ name: String) -> Setting<Settings> {
        guard let setting = byName[name] else { preconditionFailure("no setting is named \(name)") }
        return setting
    }

    /// thumbd's own settings, which no stage owns.
    static let own: [Setting<Settings>] = [
        Setting("CONFIG",
                .optionalText(\.settingsFile),
                default: .none,
                help: "A settings file: THUMBD_NAME=value lines, or a .json file keyed by the names in lowercase "
                    + "(e.g. {\"max_src_file_size\": 10485760}); flags and the environment win over it. SIGHUP reads it "
                    + "again for the settings marked so."),
        Setting("LOG_LEVEL", imgproxy: true,
                .field(\.logLevel, read: Settings.logLevel, show: \.rawValue),
                help: "debug, info, warn or error."),
        Setting("LOG_FORMAT", imgproxy: true,
                .choice(\.logFormat, expected: "pretty, structured, json or gcp"),
                help: "pretty, structured (logfmt), json or gcp (Google Cloud Logging's JSON)."),
        Setting("CACHE_ROOT",
                .field(\.cacheRoot, read: SettingText.absolutePath, show: { $0 }),
                help: "The directory nginx serves thumbnails from (its root)."),
        Setting("BASE_URL", imgproxy: true, reloads: true,
                .optionalText(\.baseURL),
                default: .none,
                help: "Put before every source that does not start with it (imgproxy's rule), so it confines sources.",
                details: "Put before every source that does not start with it, as imgproxy does, so it confines "
                    + "sources: `cat.jpg` and `http://elsewhere/x.jpg` alike are read under it. A base without a "
                    + "path (`https://origin.example`) is taken with its `/`. With a web base, `local://` and "
                    + "`s3://` sources are paths on it; with `local:///dir/`, every source is read under that "
                    + "directory."),
        Setting("LOCAL_FILESYSTEM_ROOT", imgproxy: true,
                .optional(\.localFileSystemRoot, read: SettingText.directory, show: { $0 }),
                default: .described("off"),
                help: "Directory local:///path sources are read under.",
                details: "The directory `local:///path` sources are read under; nothing outside it, symlinks "
                    + "included."),
        Setting("MAGICK_POLICY_DIR",
                .field(\.magickPolicyDirectory, read: SettingText.directory, show: { $0 }),
                help: "Directory of thumbd's ImageMagick policy.xml (deploy/policy.xml).",
                details: "Directory of thumbd's ImageMagick `policy.xml` (ship `deploy/policy.xml` there); thumbd "
                    + "checks the merged policy at start and refuses to run if a dangerous coder is readable, "
                    + "a served format is not, or a time limit is set."),
        Setting("PROMETHEUS_BIND", imgproxy: true,
                .optional(\.prometheusBind, read: Settings.tcpAddress, show: \.description),
                default: .described("off"),
                help: "host:port of a listener answering GET /metrics, for a Prometheus nginx's site does not allow.",
                details: "`host:port` (`:9464` for every address) of an HTTP listener of thumbd's own that "
                    + "answers `GET /metrics` with the metrics and every other request with 404, so that a "
                    + "Prometheus on another host can scrape without an `allow` line in nginx's site and "
                    + "without `METRICS_TOKEN`: bind it to an address only Prometheus reaches. See "
                    + "docs/operations.md."),
        Setting("PROMETHEUS_NAMESPACE", imgproxy: true,
                .field(\.prometheusNamespace, read: Settings.metricNamespace, show: { $0 }),
                help: "First part of every metric's name (thumbd_requests_total); empty: none.",
                details: "The first part of every metric's name but `process_*`'s: `thumbd_requests_total`; "
                    + "`imgproxy` makes them `imgproxy_requests_total`, as an imgproxy dashboard asks; empty: "
                    + "no prefix, imgproxy's default (`requests_total`)."),
        Setting("METRICS_TOKEN", secret: true, reloads: true,
                .optional(\.metricsToken, read: Settings.bearerToken, show: { $0 }),
                default: .described("none: refused"),
                help: "Token /_thumbd/metrics through nginx asks for (Authorization: Bearer); unset, it is refused.",
                details: "The token `/_thumbd/metrics` through nginx asks for, as `Authorization: Bearer <token>` "
                    + "(at least 16 characters; `openssl rand -hex 32`); unset, that path answers 403. nginx's "
                    + "`allow` lines cannot tell a Prometheus on the host from a reverse proxy on the host, whose "
                    + "clients all arrive from 127.0.0.1. `PROMETHEUS_BIND`'s listener asks for none. See "
                    + "docs/operations.md."),
    ]

    static func logLevel(_ text: String) throws -> Logger.Level {
        guard let level = Logger.Level(imgproxyName: text) else {
            throw InvalidSetting(expected: "expected debug, info, warn or error")
        }
        return level
    }

    static func tcpAddress(_ text: String) throws -> ListenAddress {
        guard let address = ListenAddress(text), case .tcp = address else {
            throw InvalidSetting(expected: "expected host:port")
        }
        return address
    }

    /// Prometheus' rule for a name's first part, which becomes one with `_` after it.
    static func metricNamespace(_ text: String) throws -> String {
        let valid = text.utf8.enumerated().allSatisfy { index, byte in
            byte == UInt8(ascii: "_") || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
                || (index > 0 && byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
        }
        guard valid else { throw InvalidSetting(expected: "expected letters, digits and _, not starting with a digit") }
        return text
    }

    /// A token a client can send as `Authorization: Bearer <token>` (RFC 6750's characters), and
    /// long enough not to be found by trying.
    static func bearerToken(_ text: String) throws -> String {
        let valid = text.utf8.count >= 16 && text.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-._~+/=".unicodeScalars.contains($0))
        }
        guard valid else {
            throw InvalidSetting(expected: "expected at least 16 characters of letters, digits and -._~+/= "
                + "(openssl rand -hex 32 makes one)")
        }
        return text
    }
}

extension Logger.Level {
    /// imgproxy's level names, plus swift-log's.
    init?(imgproxyName name: String) {
        switch name.lowercased() {
        case "warn": self = .warning
        case "fatal": self = .critical
        default: self.init(rawValue: name.lowercased())
        }
    }
}
