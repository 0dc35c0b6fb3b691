import ThumbRuntime

/// `padding`: a border of the background, side by side.
struct Pad: RenderStep {
    func apply(to image: MagickImage, in context: RenderContext) throws(ImagingFailure) {
        let padding = context.plan.padding
        guard !padding.isEmpty else { return }
        try image.extend(toWidth: image.width + padding.left + padding.right,
                         height: image.height + padding.top + padding.bottom,
                         x: padding.left, y: padding.top, color: context.background)
    }
}
