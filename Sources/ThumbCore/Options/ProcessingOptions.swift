/// What to do with the source image, as the URL's options say (imgproxy's processing options).
public struct ProcessingOptions: Sendable, Hashable {
    public static let maxDimension = 16_384

    public var resizingType: ResizingType = .fit
    /// 0 means: derived from the other side and the aspect ratio.
    public var width = 0
    public var height = 0
    public var enlarge = false
    public var gravity = Gravity.center
    /// 0 means: the output format's default quality.
    public var quality = 0
    /// nil means: the source's format.
    public var format: ImageFormat?

    public init() {}

    /// The quality to encode `format` with.
    public func effectiveQuality(for format: ImageFormat) -> Int {
        quality > 0 ? quality : format.defaultQuality
    }
}
