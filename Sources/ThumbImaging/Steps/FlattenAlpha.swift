import ThumbRuntime

/// Transparency onto the background: always for formats without alpha (JPEG), and whenever a
/// background is asked for.
struct FlattenAlpha: RenderStep {
    func apply(to image: MagickImage, in context: RenderContext) throws(ImagingFailure) {
        guard image.hasAlpha, !context.format.supportsAlpha || context.options.background != nil else { return }
        try image.flatten(onto: (context.options.background ?? .white).magickName)
    }
}
