/// Drops EXIF, comments and profiles: they are bytes a thumbnail does not need, and can leak
/// where and with what a photo was taken.
struct StripMetadata: RenderStep {
    func apply(to image: MagickImage, in context: RenderContext) throws(ThumbError) {
        try image.strip()
    }
}
