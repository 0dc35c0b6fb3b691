import ThumbImaging
import ThumbRequest
import ThumbRuntime

/// Where the fallback image comes from (one of a file, base64 or a URL) and how it is answered.
extension FallbackImage.Settings: DeclaresSettings {
    public static let settings: [Setting<FallbackImage.Settings>] = [
        Setting("FALLBACK_IMAGE_PATH", imgproxy: true, exclusive: "fallback image",
                .optional(\.image, read: SettingImage.file, show: SettingImage.shown),
                default: .none,
                help: "Image answered, rendered with the URL's options, when a source cannot be fetched or decoded.",
                details: "The image answered when a source cannot be fetched or decoded (404, 413, 422, 502, 504 "
                    + "of the source), rendered with the URL's options, never stored; read and checked at "
                    + "start."),
        Setting("FALLBACK_IMAGE_DATA", imgproxy: true, exclusive: "fallback image",
                .optional(\.image, read: SettingImage.base64, show: SettingImage.shown),
                default: .none,
                help: "The fallback image itself, in base64."),
        Setting("FALLBACK_IMAGE_URL", imgproxy: true, exclusive: "fallback image",
                .optionalText(\.url),
                default: .none,
                help: "URL of the fallback image, fetched at start, and again in the background until it loads.",
                details: "The same image fetched at start, through the same address checks as sources; while it "
                    + "fails, thumbd serves without a fallback and tries again, the pause doubling from 1 s to a "
                    + "minute, until it loads (docs/operations.md)."),
        Setting("FALLBACK_IMAGE_HTTP_CODE", imgproxy: true,
                .integer(\.status, 0...599, read: Self.status, show: { "\($0 ?? 0)" }),
                help: "Status the fallback image is answered with; 0: the status the failure had."),
        Setting("FALLBACK_IMAGE_TTL", imgproxy: true,
                Self.maxAge,
                help: "Seconds clients may keep the fallback image (Cache-Control max-age); 0: a year, as thumbnails.",
                details: "Seconds clients may keep the fallback image (`Cache-Control: public, max-age=…`), and "
                    + "thumbd its rendering for that URL (in memory), so the real one shows soon after the "
                    + "origin recovers; 0: a year, as thumbnails (imgproxy's `TTL`)."),
    ]

    /// 0: a year, as thumbnails.
    private static let maxAge = SettingBinding<Self>.integer(
        \.maxAge, 0...31_536_000, read: { $0 == 0 ? ThumbnailLifetime.seconds : $0 }, show: { "\($0)" })

    /// 0: the status the failure had.
    private static func status(_ code: Int) throws -> Int? {
        guard code == 0 || code >= 200 else {
            throw InvalidSetting(expected: "expected 0 or an HTTP status from 200 to 599")
        }
        return code == 0 ? nil : code
    }
}
