import Crypto
import Foundation

/// Where in the cache a thumbnail for a URI lives, such that nginx finds it: at `$uri` itself when
/// the URL names its format (`plain/...@webp`, which nginx/thumbd.conf's format locations serve
/// from `$uri`: one lookup) or nginx's idea of the URI's extension names it (`try_files $uri`: one
/// stat), otherwise at `$uri.{ext}` (`try_files ... $uri.jpg $uri.png $uri.webp $uri.gif
/// $uri.avif @thumbd`), which also gives nginx the right Content-Type. A format picked from the
/// client's Accept header lives at `$uri.auto.{ext}`, which nginx offers only to clients whose
/// Accept header picks the same (`$thumbd_negotiated`). A URI no file system can hold (a component
/// over 255 bytes), or a thumbnail whose answer needs headers nginx would not send (a download
/// file name), goes to a hashed name that only thumbd looks up. Every name with `.auto.` varies by
/// Accept.
public struct CachePath: Sendable, Hashable {
    public enum Naming: Sendable, Hashable {
        /// `$uri` or `$uri.{ext}`: right for every client.
        case shared
        /// `$uri.auto.none.{ext}`: a URL that names no format while negotiation is on, rendered for
        /// a client that accepts neither WebP nor AVIF; nginx offers it to such clients only, so a
        /// negotiating client never gets it and reaches (or makes) its own variant.
        case suffixed
        /// `$uri.auto.{ext}`: for clients that accept the format.
        case negotiated
        /// A hashed name under /_hashed/, answered by thumbd.
        case thumbdOnly
    }

    /// The path relative to the cache root, starting with `/`.
    public let relative: String
    /// False for the hashed names: nginx does not find them, so thumbd answers for them.
    public let isServedByNginx: Bool
    public let format: ImageFormat

    /// The order nginx's try_files probes the variants in (nginx/thumbd.conf must agree).
    public static let probeOrder: [ImageFormat] = [.jpeg, .png, .webp, .gif, .avif]

    public init(documentURI: String, format: ImageFormat, naming: Naming = .shared) {
        self.format = format
        let direct = switch naming {
        case .negotiated: documentURI + ".auto." + format.fileExtension
        case .suffixed: documentURI + ".auto.none." + format.fileExtension
        case .shared, .thumbdOnly: Self.nginxServes(documentURI, as: format)
            ? documentURI
            : documentURI + "." + format.fileExtension
        }
        if naming != .thumbdOnly, Self.fitsFileSystem(direct) {
            relative = direct
            isServedByNginx = true
        } else {
            let digest = Hex.string(SHA256.hash(data: Array(documentURI.utf8)))
            relative = "/_hashed/\(digest.prefix(2))/\(digest).\(format.fileExtension)"
            isServedByNginx = false
        }
    }

    /// Every place a thumbnail for this URI may be for this client, as nginx would look: with the
    /// output format known (named by the URL or negotiated), the one file of that format; else
    /// one per format, since the source's format decides.
    public static func candidates(documentURI: String, naming: Naming = .shared, format: ImageFormat? = nil) -> [CachePath] {
        if let format {
            return [CachePath(documentURI: documentURI, format: format, naming: naming)]
        }
        return probeOrder.map { CachePath(documentURI: documentURI, format: $0, naming: naming) }
    }

    /// Whether nginx, serving the file at `uri` itself, says it is `format`: by the URI's extension
    /// (its `types`), or by the format the URL names (`...@webp`: nginx/thumbd.conf's format
    /// locations, whose regexes are case-sensitive, so `@WEBP` is not one).
    static func nginxServes(_ uri: String, as format: ImageFormat) -> Bool {
        if format.extensions.contains(nginxExtension(of: uri)) { return true }
        guard let at = uri.lastIndex(of: "@") else { return false }
        return format.extensions.contains(String(uri[uri.index(after: at)...]))
    }

    /// nginx's `ngx_http_set_exten`: what follows the last dot of the last segment, lowercased,
    /// unless the dot begins the segment.
    static func nginxExtension(of uri: String) -> String {
        let bytes = Array(uri.utf8)
        var index = bytes.count - 1
        while index > 1 {
            if bytes[index] == UInt8(ascii: ".") && bytes[index - 1] != UInt8(ascii: "/") {
                return String(decoding: bytes[(index + 1)...], as: UTF8.self).lowercased()
            }
            if bytes[index] == UInt8(ascii: "/") { return "" }
            index -= 1
        }
        return ""
    }

    /// Counted on the UTF-8 bytes: every request asks this of several candidate names.
    private static func fitsFileSystem(_ path: String) -> Bool {
        guard path.utf8.count < 3_800 else { return false }
        var component = 0
        for byte in path.utf8 {
            component = byte == UInt8(ascii: "/") ? 0 : component + 1
            if component > 255 { return false }
        }
        return true
    }
}
