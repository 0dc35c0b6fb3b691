/// imgproxy's AUTO_WEBP / AUTO_AVIF and ENFORCE_WEBP / ENFORCE_AVIF: the format the client's
/// Accept header picks, AVIF before WebP, for URLs that name no format (auto or enforced) and for
/// URLs that name one (enforced only). NginxSite's maps make the same choice for hits.
public struct FormatNegotiation: Sendable, Hashable {
    public var webp = false
    public var avif = false
    public var enforceWebp = false
    public var enforceAvif = false

    public init(webp: Bool = false, avif: Bool = false, enforceWebp: Bool = false, enforceAvif: Bool = false) {
        self.webp = webp
        self.avif = avif
        self.enforceWebp = enforceWebp
        self.enforceAvif = enforceAvif
    }

    /// Whether the answer to a URL that names `formatInURL` (nil: none) depends on Accept.
    public func varies(formatInURL: ImageFormat?) -> Bool {
        !offered(formatInURL: formatInURL).isEmpty
    }

    /// The format Accept picks, or nil: the URL's format, or the preferred one, stands. Matched
    /// as imgproxy and nginx's `map` match it: `image/avif` anywhere in the header, case and all.
    public func format(for accept: String, formatInURL: ImageFormat?) -> ImageFormat? {
        offered(formatInURL: formatInURL).first { accept.contains($0.mimeType) }
    }

    /// The formats offered, AVIF first: every one enabled for URLs without a format; only the
    /// enforced ones over a format the URL names.
    private func offered(formatInURL: ImageFormat?) -> [ImageFormat] {
        let auto = formatInURL == nil
        return [(ImageFormat.avif, enforceAvif || auto && avif), (.webp, enforceWebp || auto && webp)]
            .filter(\.1).map(\.0)
    }
}
