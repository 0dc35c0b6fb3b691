import ThumbRequest

/// A format thumbd reads: the five it also writes, and raster formats ImageMagick reads safely
/// under thumbd's policy (HEIC, TIFF, BMP). Known by the first bytes, never by name or header.
public enum SourceFormat: String, Sendable, Hashable, CaseIterable {
    case jpeg, png, gif, webp, avif, heic, tiff, bmp

    /// Every format but HEIC and TIFF, whose decoders thumbd runs only when told to.
    public static let enabledByDefault: Set<SourceFormat> = [.jpeg, .png, .gif, .webp, .avif, .bmp]

    /// The output format that is this very format: kept where preferred, passed through by
    /// `skip_processing` and `raw`.
    public var asOutput: ImageFormat? { ImageFormat(rawValue: rawValue) }

    /// GIF and WebP draw each frame on a canvas of the file's size, at an offset: a frame may
    /// cover only the part that changed, and the canvas is the picture a viewer sees.
    var drawsFramesOnCanvas: Bool { self == .gif || self == .webp }
}
