/// JPEG has no transparency: compose over white rather than let transparent pixels turn black.
struct FlattenAlpha: RenderStep {
    func apply(to image: MagickImage, in context: RenderContext) throws(ThumbError) {
        guard context.format == .jpeg, image.hasAlpha else { return }
        try image.flatten(onto: "white")
    }
}
