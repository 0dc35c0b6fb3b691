import Crypto
import Foundation

/// The canonical identity of a thumbnail: the source and every option that changes the bytes
/// produced, normalised so that two URLs that spell one thumbnail differently (plain or base64
/// source, long or short names, another order, presets or the same options written out, q:0 or
/// the format's default) have one key and share one job. Options that change only the response
/// headers or the URL's validity (`filename`, `return_attachment`, `expires`) are left out.
/// The renderer's `EncodePolicy` adds what the bytes depend on beyond these options: how its
/// encoders keep chroma, and what autoquality's search reads (its options among them, written
/// where the search runs).
public struct ThumbnailKey: Sendable, Hashable, CustomStringConvertible {
    public let canonical: String
    /// The policy the key was written under: the same request in another format is keyed by it too.
    let policy: any EncodePolicy

    public init(source: String, options: ProcessingOptions, policy: any EncodePolicy) {
        self.init(source: source, options: options, formatInURL: options.format, policy: policy)
    }

    /// - Parameter formatInURL: the format the URL names, before negotiation: whether processing
    ///   is skipped depends on it.
    public init(source: String, options: ProcessingOptions, formatInURL: ImageFormat?, policy: any EncodePolicy) {
        self.policy = policy
        let o = options
        canonical = [
            "v2",
            Self.string(source),
            // Geometry
            "rt:\(o.resizingType.rawValue)",
            "s:\(o.width):\(o.height)",
            "min:\(o.minWidth):\(o.minHeight)",
            "z:\(Self.number(o.zoomX)):\(Self.number(o.zoomY))",
            "dpr:\(Self.number(o.dpr))",
            "el:\(Self.flag(o.enlarge))",
            "ex:\(Self.gravity(o.extend))",
            "exar:\(Self.gravity(o.extendAspectRatio))",
            "g:\(Self.gravity(o.gravity))",
            "c:\(Self.crop(o.crop, imageGravity: o.gravity))",
            "t:\(Self.trim(o.trim))",
            "pd:\(o.padding.top):\(o.padding.right):\(o.padding.bottom):\(o.padding.left)",
            "ar:\(Self.flag(o.autoRotate))",
            "rot:\(o.rotate)",
            "fl:\(Self.flag(o.flipHorizontal)):\(Self.flag(o.flipVertical))",
            // Colour and effects
            "bg:\(o.background?.hex ?? "-")",
            "bl:\(Self.number(o.blur))",
            "sh:\(Self.number(o.sharpen))",
            // A pixel size of 1 is the image itself.
            "pix:\(o.pixelate > 1 ? o.pixelate : 0)",
            "wm:\(Self.watermark(o.watermark))",
            // Metadata: keeping the copyright only means something while stripping.
            "sm:\(Self.flag(o.stripMetadata)):\(Self.flag(o.stripMetadata && o.keepCopyright))",
            "scp:\(Self.flag(o.stripColorProfile))",
            // Output
            "f:\(Self.format(o))",
            Self.quality(o),
            "mb:\(o.maxBytes)",
            "skp:\(Self.skipped(o.skipProcessing, formatInURL: formatInURL))",
            "cb:\(Self.string(o.cacheBuster))",
            // Security options change whether a thumbnail is made, so requests that differ in
            // them must not share one job.
            "msr:\(o.maxSourceResolution.map(Self.number) ?? "-")",
            "msfs:\(o.maxSourceFileSize.map(String.init) ?? "-")",
            "maf:\(o.maxAnimationFrames.map(String.init) ?? "-")",
            "mrd:\(o.maxResultDimension.map(String.init) ?? "-")",
        // Only where it is on, so the keys of every other URL stay what they were.
        ].joined(separator: "|") + (o.raw ? "|raw" : "") + policy.keyFields(for: o)
    }

    /// One key is one thumbnail, whatever policy object wrote it.
    public static func == (one: ThumbnailKey, other: ThumbnailKey) -> Bool { one.canonical == other.canonical }

    public func hash(into hasher: inout Hasher) { hasher.combine(canonical) }

    /// A short stable name for logs and hashed file names.
    public var digest: String {
        Hex.string(SHA256.hash(data: Array(canonical.utf8)).prefix(16))
    }

    public var description: String { digest }

    // MARK: Normal forms

    /// Length-prefixed, so no text inside (a `|` in a URL or a cache buster) can pass for a field.
    private static func string(_ text: String) -> String { "\(text.utf8.count):\(text)" }

    /// A number as keys write it. `+ 0` turns -0 into 0: `g:ce:-0` is the same thumbnail as `g:ce`.
    public static func number(_ value: Double) -> String { "\(value + 0)" }

    private static func flag(_ value: Bool) -> String { value ? "1" : "0" }

    private static func gravity(_ gravity: Gravity) -> String {
        "\(gravity.anchor.rawValue):\(number(gravity.offsetX)):\(number(gravity.offsetY))"
    }

    private static func gravity(_ gravity: Gravity?) -> String { gravity.map(Self.gravity) ?? "-" }

    /// 0:0 keeps the whole image, as no crop does; a crop without its own gravity uses the image's.
    private static func crop(_ crop: Crop?, imageGravity: Gravity) -> String {
        guard let crop, crop.width > 0 || crop.height > 0 else { return "-" }
        return "\(number(crop.width)):\(number(crop.height)):\(gravity(crop.gravity ?? imageGravity))"
    }

    private static func trim(_ trim: Trim?) -> String {
        guard let trim else { return "-" }
        return "\(number(trim.threshold)):\(trim.color?.hex ?? "auto"):\(flag(trim.equalHorizontal)):"
            + flag(trim.equalVertical)
    }

    private static func watermark(_ watermark: Watermark?) -> String {
        guard let watermark, watermark.opacity > 0 else { return "-" }
        let position = switch watermark.position {
        case .anchored(let anchor): anchor.rawValue
        case .replicate: "re"
        }
        return "\(number(watermark.opacity)):\(position):\(number(watermark.offsetX)):\(number(watermark.offsetY)):"
            + number(watermark.scale)
    }

    /// With the output format known, only the quality it is encoded with counts, and PNG and GIF
    /// ignore quality; with the source's format, `q` and every `fq` entry, sorted by format.
    private static func quality(_ options: ProcessingOptions) -> String {
        guard let format = options.format else {
            let perFormat = options.formatQuality.sorted { $0.key.rawValue < $1.key.rawValue }
                .map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: ",")
            return "q:\(options.quality):fq:\(perFormat)"
        }
        return format == .png || format == .gif ? "q:-" : "q:\(options.effectiveQuality(for: format))"
    }

    /// The format named, else `best` and the client's class (the negotiated candidate), else the
    /// source's.
    private static func format(_ options: ProcessingOptions) -> String {
        if let format = options.format { return format.rawValue }
        guard options.bestFormat else { return "source" }
        return BestFormat.name + (options.bestNegotiated.map { "+" + $0.rawValue } ?? "")
    }

    /// Processing is skipped only when the URL names the source's format or none: with a format
    /// in the URL, only whether that format is listed counts. Sorted.
    private static func skipped(_ skipped: Set<ImageFormat>, formatInURL: ImageFormat?) -> String {
        let formats = formatInURL.map { skipped.intersection([$0]) } ?? skipped
        return formats.map(\.rawValue).sorted().joined(separator: ",")
    }
}
