/// What every step of the render knows: the options, the geometry planned from the source's
/// header, and the format being written.
struct RenderContext {
    let options: ProcessingOptions
    let plan: ResizePlan
    let format: ImageFormat
}

/// One small named stage of the render. The order lives in `Renderer.pipeline`.
protocol RenderStep: Sendable {
    func apply(to image: MagickImage, in context: RenderContext) throws(ThumbError)
}
