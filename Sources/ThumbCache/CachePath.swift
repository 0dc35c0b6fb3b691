import Crypto
import ThumbRequest

/// Where a thumbnail lives in the cache. Every file sits one fan-out directory deep, so the layout
/// has a fixed number of directories, whatever the URLs (nginx's proxy_cache `levels=` is the
/// model; a file named by its URI made about five directories a thumbnail, none shared):
///
///     served/{first character}/{signature}{suffix}   nginx finds it from the request alone
///     private/{first hex digit}/{digest}{suffix}     only thumbd answers for it
///
/// A served file is named by its URL's signature: an HMAC of the rest of the path, so one name
/// per URL, and the first segment of the request, which nginx's location regexes capture
/// (NginxSite). The suffix says what nginx must pick by: `.{ext}` for everyone,
/// `.auto.{ext}` for clients whose Accept header picks that format, `.auto.none.{ext}` for clients
/// that accept no negotiated format. A thumbnail whose answer needs headers nginx would not send
/// (an expiry thumbd checks on every request, a download name), or whose URL carries no signature
/// verified as its path's HMAC (insecure mode, a trusted signature, which passes with any path), is
/// private: named by the digest of its URI, outside the directory nginx serves, reached only
/// through thumbd's X-Accel-Redirect.
public struct CachePath: Sendable, Hashable {
    public enum Naming: Sendable, Hashable {
        /// `{name}.{ext}`: right for every client.
        case shared
        /// `{name}.auto.none.{ext}`: a URL that names no format while negotiation is on, rendered
        /// for a client that accepts no negotiated format; nginx offers it to such clients only.
        case suffixed
        /// `{name}.auto.{ext}`: for clients that accept the format.
        case negotiated
        /// `{name}.best.{ext}`, or `{name}.best.{class}.{ext}` where the answer varies by Accept:
        /// the best format's winner for the clients of a class (the negotiated format nginx's map
        /// picks, or `none`), whichever format it is; nginx tries each extension.
        case best(class: String?)
        /// A private name, answered by thumbd.
        case thumbdOnly
    }

    /// The directory nginx serves, and the one only thumbd's internal location reaches.
    public static let servedDirectory = "served"
    public static let privateDirectory = "private"

    /// The path relative to the cache root, starting with `/`.
    public let relative: String
    /// False for private names: nginx does not find them, so thumbd answers for them.
    public let isServedByNginx: Bool
    public let format: ImageFormat

    /// The order nginx's try_files probes the formats in (NginxSite must agree).
    public static let probeOrder: [ImageFormat] = [.jpeg, .png, .webp, .gif, .avif, .jxl]

    /// - Parameter signature: the URL's verified signature, nil when none was verified.
    public init(signature: String?, documentURI: String, format: ImageFormat, naming: Naming = .shared) {
        self.init(Stem(signature: signature, documentURI: documentURI, naming: naming), format: format, naming: naming)
    }

    private init(_ stem: Stem, format: ImageFormat, naming: Naming) {
        self.format = format
        let suffix = switch naming {
        case .negotiated: ".auto." + format.fileExtension
        case .suffixed: ".auto.none." + format.fileExtension
        case .best(let bestClass): ".\(BestFormat.name)" + (bestClass.map { "." + $0 } ?? "") + "." + format.fileExtension
        case .shared, .thumbdOnly: "." + format.fileExtension
        }
        relative = stem.path + suffix
        isServedByNginx = stem.isServed
    }

    /// Every place a thumbnail for this URL may be for this client, as nginx would look: with the
    /// output format known (named by the URL or negotiated), the one file of that format; else
    /// one per format, since the source's format decides. The name is worked out once for all.
    public static func candidates(signature: String?, documentURI: String, naming: Naming = .shared,
                                  format: ImageFormat? = nil) -> [CachePath] {
        let stem = Stem(signature: signature, documentURI: documentURI, naming: naming)
        return (format.map { [$0] } ?? probeOrder).map { CachePath(stem, format: $0, naming: naming) }
    }

    /// A file's path but for its suffix: `/served/{c}/{signature}` when nginx may serve it, else
    /// `/private/{h}/{digest}` (the first 16 bytes of the URI's SHA-256).
    private struct Stem {
        let path: String
        let isServed: Bool

        init(signature: String?, documentURI: String, naming: Naming) {
            if naming != .thumbdOnly, let signature, CachePath.isServable(signature) {
                self.init(served: signature)
            } else {
                let digest = Hex.string(SHA256.hash(data: Array(documentURI.utf8)).prefix(16))
                self.init(path: "/\(CachePath.privateDirectory)/\(digest.first!)/\(digest)", isServed: false)
            }
        }

        init(served signature: String) {
            self.init(path: "/\(CachePath.servedDirectory)/\(signature.first!)/\(signature)", isServed: true)
        }

        private init(path: String, isServed: Bool) {
            self.path = path
            self.isServed = isServed
        }
    }

    /// Every file nginx would serve for a URL that carries `signature`, in each format and each
    /// naming nginx looks for: the names a signature that must name no file (a trusted one) may
    /// still have on disk from an older thumbd.
    public static func servedNames(signature: String) -> [CachePath] {
        guard isServable(signature) else { return [] }
        return ([Naming.shared, .suffixed, .negotiated] + bestNamings).flatMap { naming in
            ImageFormat.allCases.map { CachePath(Stem(served: signature), format: $0, naming: naming) }
        }
    }

    /// Every name a URL's thumbnails may have, in every format and naming: for a purge.
    public static func everyName(signature: String?, documentURI: String) -> [CachePath] {
        ([Naming.shared, .suffixed, .negotiated, .thumbdOnly] + bestNamings).flatMap {
            candidates(signature: signature, documentURI: documentURI, naming: $0)
        }
    }

    /// Every class a best-format winner may be stored under.
    static let bestNamings: [Naming] = [.best(class: nil), .best(class: "none")]
        + FormatNegotiation.defaultOrder.map { .best(class: $0.rawValue) }

    /// The characters NginxSite's regexes capture a signature with (base64url), and as many
    /// as a signature has (1 to 32 bytes): the served name is the signature itself.
    static func isServable(_ signature: String) -> Bool {
        let bytes = signature.utf8
        return (2...43).contains(bytes.count) && bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"): true
            default: false
            }
        }
    }

    /// The longest relative path either directory has: a signature of 43 characters with the
    /// longest suffix. The index keeps paths this long in its slots.
    static let maximumLength = "/served/x/".utf8.count + 43 + ".best.none.avif".utf8.count
}
