/// Cuts the planned window out of the scaled image (the `fill` resizing type).
struct CropByGravity: RenderStep {
    func apply(to image: MagickImage, in context: RenderContext) throws(ThumbError) {
        guard let crop = context.plan.crop else { return }
        try image.crop(crop)
    }
}
