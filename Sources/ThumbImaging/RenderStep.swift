import ThumbRequest
import ThumbRuntime

/// What every step of the render knows: the options, the geometry, the format being written,
/// and how much the decoder already shrank the image (1 when it did not).
struct RenderContext {
    let options: ProcessingOptions
    let plan: ResizePlan
    let format: ImageFormat
    /// Decoded size over the size the plan was made for (shrink-on-load makes it below 1).
    let loadScale: Double
    /// The configured watermark image's bytes, if any.
    let watermark: [UInt8]?
    let watermarkOpacity: Double

    /// What fills new pixels (extend, padding, rotation, flattening): the asked background,
    /// else transparency where the format has it, else white.
    var background: String {
        if let color = options.background { return color.magickName }
        return format.supportsAlpha ? "none" : RGBColor.white.magickName
    }
}

/// One small named stage of the render. The order lives in `Renderer`.
protocol RenderStep: Sendable {
    func apply(to image: MagickImage, in context: RenderContext) throws(ImagingFailure)
}

/// A stage that runs before the geometry is known (it changes the source's size or
/// orientation), so it only sees the options.
protocol PreparationStep: Sendable {
    func apply(to image: MagickImage, options: ProcessingOptions) throws(ImagingFailure)
}
