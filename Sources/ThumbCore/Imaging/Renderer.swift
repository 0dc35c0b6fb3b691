import CMagickWand

/// Turns source bytes into thumbnail bytes with MagickWand, on the calling thread:
/// ping the header, refuse pixel floods, decode with a shrink-on-load hint, run the pipeline,
/// encode.
public struct Renderer: Sendable {
    public struct Configuration: Sendable {
        /// imgproxy's max_src_resolution, in pixels (50 megapixels).
        public var maxSourcePixels = 50_000_000

        public init() {}
    }

    public struct Rendered: Sendable {
        public let bytes: [UInt8]
        public let format: ImageFormat
        public let width: Int
        public let height: Int
    }

    /// The render, in order. A new feature is a step and a line here.
    static let pipeline: [any RenderStep] = [
        AutoOrient(),
        Scale(),
        CropByGravity(),
        FlattenAlpha(),
        StripMetadata(),
    ]

    public let configuration: Configuration

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    public func render(_ source: [UInt8], sourceFormat: ImageFormat, options: ProcessingOptions) throws(ThumbError) -> Rendered {
        let header = MagickImage()
        try header.ping(source)
        let stored = (width: header.width, height: header.height)
        guard stored.width > 0, stored.height > 0 else { throw .unprocessable("image has no pixels") }
        guard stored.width * stored.height <= configuration.maxSourcePixels else {
            throw .unprocessable("image is \(stored.width)x\(stored.height), over the limit of \(configuration.maxSourcePixels) pixels")
        }
        let transposed = Self.isTransposed(header.orientation)
        let oriented = transposed ? (width: stored.height, height: stored.width) : stored
        let plan = ResizePlan(sourceWidth: oriented.width, sourceHeight: oriented.height, options: options)
        let format = options.format ?? sourceFormat

        let image = MagickImage()
        if sourceFormat == .jpeg, let hint = Self.shrinkOnLoadHint(plan: plan, source: oriented) {
            image.setOption("jpeg:size", transposed ? "\(hint.height)x\(hint.width)" : "\(hint.width)x\(hint.height)")
        }
        try image.read(source)
        try image.keepFirstFrame()
        let context = RenderContext(options: options, plan: plan, format: format)
        for step in Self.pipeline {
            try step.apply(to: image, in: context)
        }
        let bytes = try image.encode(as: format, quality: options.effectiveQuality(for: format))
        return Rendered(bytes: bytes, format: format, width: image.width, height: image.height)
    }

    /// libjpeg can decode at 1/2, 1/4 or 1/8 scale while reading. That only pays when the
    /// scaled size is well below the source; near full size the hint costs without saving.
    static func shrinkOnLoadHint(plan: ResizePlan, source: (width: Int, height: Int)) -> (width: Int, height: Int)? {
        guard plan.scaledWidth * 3 <= source.width, plan.scaledHeight * 3 <= source.height else { return nil }
        return (plan.scaledWidth, plan.scaledHeight)
    }

    /// EXIF orientations 5 to 8 swap width and height.
    static func isTransposed(_ orientation: OrientationType) -> Bool {
        [LeftTopOrientation, RightTopOrientation, RightBottomOrientation, LeftBottomOrientation].contains(orientation)
    }
}
