import ThumbRuntime

/// The negotiated formats: which the client's Accept picks for URLs without a format, or over the
/// URL's, and in which order.
extension FormatNegotiation: DeclaresSettings {
    public static let settings: [Setting<FormatNegotiation>] = [
        Setting("AUTO_WEBP", imgproxy: true,
                .boolean(\.webp),
                help: "WebP for URLs without a format when the client accepts it.",
                details: "WebP for URLs without a format when the client's Accept has `image/webp`; answered with "
                    + "`Vary: Accept`, stored as `{signature}.auto.webp`, which nginx offers only to such "
                    + "clients."),
        Setting("AUTO_AVIF", imgproxy: true,
                .boolean(\.avif),
                help: "AVIF for URLs without a format when the client accepts it."),
        Setting("AUTO_JXL", imgproxy: true,
                .boolean(\.jxl),
                help: "JPEG XL for URLs without a format when the client accepts it (after AVIF, by default).",
                details: "JPEG XL for URLs without a format when the client's Accept has `image/jxl` and, in "
                    + "`FORMAT_NEGOTIATION_ORDER`, no format before it; nginx's site must be written with "
                    + "`--auto jxl` (with the other formats negotiated) so that hits agree."),
        Setting("ENFORCE_WEBP", imgproxy: true,
                .boolean(\.enforceWebp),
                help: "WebP whenever the client accepts it, even where the URL names another format.",
                details: "WebP whenever the client's Accept has `image/webp`, even where the URL names another "
                    + "format; every answer then varies by Accept. nginx's site must be written with "
                    + "`--enforce webp` so that hits agree."),
        Setting("ENFORCE_AVIF", imgproxy: true,
                .boolean(\.enforceAvif),
                help: "AVIF whenever the client accepts it, even where the URL names another format.",
                details: "AVIF whenever the client's Accept has `image/avif` (before WebP), even where the URL "
                    + "names another format; nginx's site must be written with `--enforce avif`."),
        Setting("ENFORCE_JXL", imgproxy: true,
                .boolean(\.enforceJxl),
                help: "JPEG XL whenever the client accepts it, even where the URL names another format.",
                details: "JPEG XL whenever the client's Accept has `image/jxl` and no format before it in "
                    + "`FORMAT_NEGOTIATION_ORDER`, even where the URL names another format; nginx's site must "
                    + "be written with `--enforce jxl`."),
        Setting("ENABLE_WEBP_DETECTION", imgproxy: true, deprecatedFor: "AUTO_WEBP",
                .boolean(\.webp),
                default: .none,
                help: "Deprecated name of AUTO_WEBP, which wins when both are set."),
        Setting("ENABLE_AVIF_DETECTION", imgproxy: true, deprecatedFor: "AUTO_AVIF",
                .boolean(\.avif),
                default: .none,
                help: "Deprecated name of AUTO_AVIF, which wins when both are set."),
        Setting("FORMAT_NEGOTIATION_ORDER",
                .field(\.order, read: Self.order, show: { $0.map(\.rawValue).joined(separator: ",") }),
                help: "The order Accept is matched in: avif, jxl and webp, comma-separated, each once.",
                details: "The order the negotiated formats are matched against the client's Accept: `avif`, "
                    + "`jxl` and `webp`, comma-separated, each once. A client that accepts several gets the "
                    + "first that is on (`AUTO_*`, `ENFORCE_*`). thumbd's own: imgproxy tries JPEG XL first, "
                    + "but at thumbnail sizes AVIF takes fewer bytes at equal quality (bench/quality), so "
                    + "Safari, which accepts both, gets AVIF. nginx's site must be written with the same "
                    + "`--order`."),
    ]

    private static func order(_ text: String) throws -> [ImageFormat] {
        guard let order = order(parsing: text) else {
            throw InvalidSetting(expected: "expected avif, jxl and webp, comma-separated, each once")
        }
        return order
    }
}
