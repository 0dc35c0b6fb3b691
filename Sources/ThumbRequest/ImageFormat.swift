/// An output (and recognised input) format, with the names it goes by in URLs and on disk.
public enum ImageFormat: String, Sendable, CaseIterable, Hashable {
    case jpeg, png, webp, gif, avif, jxl

    /// Parses an extension as imgproxy accepts it (`jpg`, `jpeg`, `png`, ...), case-insensitively.
    public init?(extension ext: String) {
        switch ext.lowercased() {
        case "jpg", "jpeg": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        case "gif": self = .gif
        case "avif": self = .avif
        case "jxl": self = .jxl
        default: return nil
        }
    }

    /// Formats imgproxy names that thumbd does not write.
    public static let otherImgproxyNames: Set = ["heic", "tiff", "bmp", "ico", "svg", "pdf", "mp4"]

    /// Every format's extension, for messages: `jpg, png, ...`.
    public static let extensionNames = allCases.map(\.fileExtension).joined(separator: ", ")

    /// The extension thumbd writes; nginx's `types` block maps it back to `mimeType`.
    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }

    /// Every extension nginx maps to this format's type.
    public var extensions: Set<String> { self == .jpeg ? ["jpg", "jpeg"] : [rawValue] }

    public var mimeType: String { "image/\(rawValue)" }

    /// The coder name ImageMagick knows the format by.
    public var magickName: String { rawValue.uppercased() }

    /// Formats that keep an animation.
    public var supportsAnimation: Bool { self == .gif || self == .webp || self == .avif }

    /// Formats whose quality trades bytes for fidelity (max_bytes and autoquality lower it).
    public var isLossy: Bool { self == .jpeg || self == .webp || self == .avif || self == .jxl }

    /// Formats that can carry transparency.
    public var supportsAlpha: Bool { self != .jpeg }

    /// imgproxy's defaults: JPEG 80, WebP 79, AVIF 63, JPEG XL 77; lossless formats ignore quality.
    public var defaultQuality: Int {
        switch self {
        case .jpeg: 80
        case .webp: 79
        case .avif: 63
        case .jxl: 77
        case .png, .gif: 100
        }
    }
}
