/// Turns the pixels upright by the EXIF orientation, so the tag can be dropped.
struct AutoOrient: RenderStep {
    func apply(to image: MagickImage, in context: RenderContext) throws(ThumbError) {
        try image.autoOrient()
    }
}
