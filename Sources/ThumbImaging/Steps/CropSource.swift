import ThumbRuntime

/// `crop`: the part of the source kept before scaling, in source pixels scaled to what the
/// decoder produced.
struct CropSource: RenderStep {
    func apply(to image: MagickImage, in context: RenderContext) throws(ImagingFailure) {
        guard let crop = context.plan.sourceCrop else { return }
        let scale = context.loadScale
        let rect = PixelRect(x: Int((Double(crop.x) * scale).rounded()), y: Int((Double(crop.y) * scale).rounded()),
                             width: max(1, Int((Double(crop.width) * scale).rounded())),
                             height: max(1, Int((Double(crop.height) * scale).rounded())))
        try image.crop(rect)
    }
}
