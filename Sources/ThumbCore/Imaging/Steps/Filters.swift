/// `blur`, `sharpen` and `pixelate`, on the result-sized image (cheap, and what imgproxy does).
struct Filters: RenderStep {
    func apply(to image: MagickImage, in context: RenderContext) throws(ThumbError) {
        let options = context.options
        if options.blur > 0 { try image.blur(sigma: options.blur * options.dpr) }
        if options.sharpen > 0 { try image.sharpen(sigma: options.sharpen * options.dpr) }
        if options.pixelate > 1 { try image.pixelate(size: Int((Double(options.pixelate) * options.dpr).rounded())) }
    }
}
