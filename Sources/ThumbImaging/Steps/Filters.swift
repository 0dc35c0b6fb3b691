import ThumbRuntime

/// `blur`, `sharpen` and `pixelate`, on the result-sized image (cheap, and what imgproxy does).
struct Filters: RenderStep {
    func apply(to image: MagickImage, in context: RenderContext) throws(ThumbError) {
        let options = context.options
        let longerSide = max(image.width, image.height)
        if options.blur > 0 { try image.blur(sigma: Self.sigma(options.blur, dpr: options.dpr, longerSide: longerSide)) }
        if options.sharpen > 0 { try image.sharpen(sigma: Self.sigma(options.sharpen, dpr: options.dpr, longerSide: longerSide)) }
        if options.pixelate > 1 { try image.pixelate(size: Int((Double(options.pixelate) * options.dpr).rounded())) }
    }

    /// A URL's sigma times dpr, at most the image's longer side: a Gaussian that wide has already
    /// spread every pixel over the whole image, so a wider one only costs more (a URL may ask
    /// for 16384 × 8).
    static func sigma(_ sigma: Double, dpr: Double, longerSide: Int) -> Double {
        min(sigma * dpr, Double(longerSide))
    }
}
