import ThumbRuntime

/// Scales to the planned size. The plan was made from the full-size header, so it holds even
/// when the decoder already shrank the image on load. ImageMagick's thumbnail (fast, and it
/// drops profiles) unless metadata or the colour profile are to be kept.
struct Scale: RenderStep {
    func apply(to image: MagickImage, in context: RenderContext) throws(ImagingFailure) {
        let plan = context.plan
        guard image.width != plan.scaledWidth || image.height != plan.scaledHeight else { return }
        if context.options.stripMetadata && context.options.stripColorProfile {
            try image.thumbnail(width: plan.scaledWidth, height: plan.scaledHeight)
        } else {
            try image.resize(width: plan.scaledWidth, height: plan.scaledHeight)
        }
    }
}
