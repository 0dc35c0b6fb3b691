/// imgproxy's AUTO_WEBP and AUTO_AVIF: for URLs that name no format, the best format the
/// client's Accept header allows, AVIF before WebP. NginxSite's `$thumbd_negotiated`
/// map makes the same choice for hits.
public struct FormatNegotiation: Sendable, Hashable {
    public var webp = false
    public var avif = false

    public init(webp: Bool = false, avif: Bool = false) {
        self.webp = webp
        self.avif = avif
    }

    public var isEnabled: Bool { webp || avif }

    public func format(for accept: String) -> ImageFormat? {
        let accepted = accept.lowercased()
        if avif, accepted.contains("image/avif") { return .avif }
        if webp, accepted.contains("image/webp") { return .webp }
        return nil
    }
}
