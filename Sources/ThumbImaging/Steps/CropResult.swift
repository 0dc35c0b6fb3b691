import ThumbRuntime

/// Cuts the result window out of the scaled image (the fill types): where the gravity puts it,
/// or, for smart gravity, where the most is to be seen.
struct CropResult: RenderStep {
    func apply(to image: MagickImage, in context: RenderContext) throws(ImagingFailure) {
        guard var window = context.plan.resultCrop else { return }
        if context.plan.placesWindowByContent {
            window = try image.smartWindow(width: window.width, height: window.height)
        }
        try image.crop(window)
    }
}
