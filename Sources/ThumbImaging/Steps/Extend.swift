import ThumbRuntime

/// `extend` and `extend_aspect_ratio`: the result on a larger canvas of the background.
struct Extend: RenderStep {
    func apply(to image: MagickImage, in context: RenderContext) throws(ImagingFailure) {
        guard let canvas = context.plan.canvas else { return }
        try image.extend(toWidth: canvas.canvasWidth, height: canvas.canvasHeight, x: canvas.x, y: canvas.y,
                         color: context.background)
    }
}
