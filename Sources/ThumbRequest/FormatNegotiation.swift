/// imgproxy's AUTO_* and ENFORCE_* for WebP, AVIF and JPEG XL: the format the client's Accept
/// header picks, in `order`, for URLs that name no format (auto or enforced) and for URLs that
/// name one (enforced only). NginxSite's maps make the same choice for hits.
public struct FormatNegotiation: Sendable, Hashable {
    public var webp = false
    public var avif = false
    public var jxl = false
    public var enforceWebp = false
    public var enforceAvif = false
    public var enforceJxl = false
    /// The order Accept is matched in: a client that accepts several gets the first of them.
    public var order = Self.defaultOrder

    /// The formats that can be negotiated, fewest bytes at equal quality first (bench/quality):
    /// AVIF before JPEG XL at thumbnail sizes, where imgproxy puts JPEG XL first.
    public static let defaultOrder: [ImageFormat] = [.avif, .jxl, .webp]

    public init(webp: Bool = false, avif: Bool = false, jxl: Bool = false,
                enforceWebp: Bool = false, enforceAvif: Bool = false, enforceJxl: Bool = false,
                order: [ImageFormat] = Self.defaultOrder) {
        self.webp = webp
        self.avif = avif
        self.jxl = jxl
        self.enforceWebp = enforceWebp
        self.enforceAvif = enforceAvif
        self.enforceJxl = enforceJxl
        self.order = order
    }

    /// `avif,jxl,webp` in any order, each once (FORMAT_NEGOTIATION_ORDER, nginx-config's --order);
    /// nil for anything else.
    public static func order(parsing text: String) -> [ImageFormat]? {
        let names = text.split(separator: ",").map { String($0.filter { !$0.isWhitespace }).lowercased() }
        let formats = names.compactMap(ImageFormat.init(rawValue:))
        guard formats.count == names.count, formats.count == defaultOrder.count, Set(formats) == Set(defaultOrder) else {
            return nil
        }
        return formats
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

    /// The formats offered, in `order`: every one enabled for URLs without a format; only the
    /// enforced ones over a format the URL names.
    private func offered(formatInURL: ImageFormat?) -> [ImageFormat] {
        let auto = formatInURL == nil
        return order.filter { format in
            switch format {
            case .avif: enforceAvif || auto && avif
            case .jxl: enforceJxl || auto && jxl
            case .webp: enforceWebp || auto && webp
            default: false
            }
        }
    }
}
