import Foundation
import ThumbRuntime

/// The source fetch's settings: which sources and addresses, how much, how long, through what.
extension OriginFetcher.Configuration: DeclaresSettings {
    public static let settings: [Setting<OriginFetcher.Configuration>] = [
        Setting("ALLOWED_SOURCES", imgproxy: true, reloads: true,
                Self.allowedSources,
                default: .described("any source"),
                help: "Source URL prefixes, comma-separated; * stops at /.",
                details: "Source URL prefixes, comma-separated; `*` matches within one part of the URL "
                    + "(`https://*.example.com/`); `local://` sources must be listed too."),
        Setting("ALLOWED_SOURCE_ADDRESSES", reloads: true,
                Self.allowedRanges,
                default: .none,
                help: "Source addresses or CIDR ranges to allow, comma-separated.",
                details: "Addresses or CIDR ranges (`10.0.0.5`, `fd00::/8`), comma-separated, allowed whatever "
                    + "their class; never unspecified or multicast."),
        Setting("ALLOW_LOOPBACK_SOURCE_ADDRESSES", imgproxy: true, reloads: true,
                .flag(\.addressPolicy.allowLoopback),
                help: "Allow sources on loopback addresses."),
        Setting("ALLOW_PRIVATE_SOURCE_ADDRESSES", imgproxy: true, reloads: true,
                .flag(\.addressPolicy.allowPrivate),
                help: "Allow sources on private networks (RFC 1918, RFC 4193, CGNAT).",
                details: "Allow RFC 1918, RFC 4193, CGNAT, benchmarking, DS-Lite, SRv6, IPv4 inside IPv6 (6to4, "
                    + "Teredo, NAT64 to a non-global address)."),
        Setting("ALLOW_LINK_LOCAL_SOURCE_ADDRESSES", imgproxy: true, reloads: true,
                .flag(\.addressPolicy.allowLinkLocal),
                help: "Allow sources on link-local addresses."),
        Setting("MAX_SRC_FILE_SIZE", imgproxy: true,
                Self.maxBytes,
                help: "Largest source to download, in bytes; 0: no limit."),
        Setting("DOWNLOAD_TIMEOUT", imgproxy: true,
                Self.downloadTimeout,
                help: "Seconds a source download may take in all."),
        Setting("FIRST_BYTE_TIMEOUT",
                .decimal(\.firstByteTimeoutMilliseconds, 0.1...600, unit: 1000),
                help: "Seconds from the start of a download to its first byte."),
        Setting("MAX_REDIRECTS", imgproxy: true,
                .integer(\.maxRedirects, 0...20),
                help: "Redirects to follow per source."),
        Setting("USER_AGENT", imgproxy: true,
                Self.userAgent,
                default: .described("thumbd/VERSION"),
                help: "User-Agent sent to origins; %current_version is thumbd's version."),
        Setting("SOURCE_PROXY",
                .optional(\.proxy, read: Self.proxyURL, show: { $0 }),
                default: .none,
                help: "HTTP proxy for source fetches; the environment's are never used.",
                details: "`http://` or `https://` proxy for source downloads (`http_proxy`, `HTTPS_PROXY`, "
                    + "`ALL_PROXY` are never used); with one, thumbd resolves each source's host, checks the "
                    + "address against the address settings before anything connects, and has the proxy tunnel "
                    + "(CONNECT) to that address."),
        Setting("SOURCE_HEADERS", secret: true, reloads: true,
                .field(\.extraHeaders, read: SourceHeaders.setting, show: \.description),
                default: .none,
                help: "Extra request headers per source prefix: 'https://a.example/ X-Key: v|...'.",
                details: "Extra request headers per source prefix: `https://a.example/ X-Key: v`, entries "
                    + "separated by `\\|`; thumbd follows redirects itself and sends each hop only the headers "
                    + "of its own URL's prefix, so a token never follows a redirect to another origin."),
    ]

    private static let allowedSources = SettingBinding<Self>.field(
        \.allowedSources, read: { SourceAllowList(prefixes: SettingText.list($0)) },
        show: { $0.prefixes.joined(separator: ",") })

    private static let allowedRanges = SettingBinding<Self>.field(
        \.addressPolicy.allowedRanges, read: AddressRange.list, show: { $0.map(\.description).joined(separator: ",") })

    /// 0: no limit.
    private static let maxBytes = SettingBinding<Self>.integer(
        \.maxBytes, 0...(1 << 50), read: { $0 == 0 ? Int.max : $0 }, show: { $0 == Int.max ? "0" : "\($0)" })

    /// The whole download's bound also bounds its connection.
    private static let downloadTimeout = SettingBinding<Self>(kind: .decimal(0.1...600), apply: { text, configuration in
        let milliseconds = Int(try SettingText.decimal(text, in: 0.1...600) * 1000)
        configuration.totalTimeoutMilliseconds = milliseconds
        configuration.connectTimeoutMilliseconds = min(milliseconds, configuration.connectTimeoutMilliseconds)
    }, show: { (Double($0.totalTimeoutMilliseconds) / 1000).shortText })

    private static let userAgent = SettingBinding<Self>.field(
        \.userAgent, read: { $0.replacingOccurrences(of: "%current_version", with: ThumbdVersion.current) },
        show: { $0 })

    /// An HTTP(S) proxy only: it tunnels (CONNECT) to the address thumbd checked, where a SOCKS
    /// proxy might resolve the name itself.
    private static func proxyURL(_ text: String) throws -> String {
        guard text.hasPrefix("http://") || text.hasPrefix("https://") else {
            throw InvalidSetting(expected: "expected an http:// or https:// proxy URL")
        }
        return text
    }
}

extension AddressRange {
    /// Every entry that is not an address or CIDR range is named in the one problem.
    static func list(_ text: String) throws -> [AddressRange] {
        let items = SettingText.list(text)
        let invalid = items.filter { AddressRange($0) == nil }
        guard invalid.isEmpty else {
            let names = invalid.map(\.debugDescription).joined(separator: ", ")
            throw InvalidSetting(expected: "expected addresses or CIDR ranges (10.0.0.5, fd00::/8), not \(names)")
        }
        return items.compactMap(AddressRange.init)
    }
}

extension SourceHeaders: CustomStringConvertible {
    static func setting(_ text: String) throws -> SourceHeaders {
        guard let headers = SourceHeaders(text) else {
            throw InvalidSetting(expected: "expected PREFIX Name: value, entries separated by |")
        }
        return headers
    }

    /// As the setting writes them.
    public var description: String { entries.map { "\($0.prefix) \($0.header)" }.joined(separator: "|") }
}
