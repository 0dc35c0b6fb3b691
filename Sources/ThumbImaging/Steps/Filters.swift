import ThumbRuntime

/// `blur`, `sharpen` and `pixelate`, on the result-sized image (cheap, and what imgproxy does),
/// as the URL gives them: imgproxy does not multiply them by `dpr` (processing/apply_filters.go).
struct Filters: RenderStep {
    func apply(to image: MagickImage, in context: RenderContext) throws(ImagingFailure) {
        let options = context.options
        let longerSide = max(image.width, image.height)
        if options.blur > 0 { try image.blur(sigma: Self.sigma(options.blur, longerSide: longerSide)) }
        if options.sharpen > 0 { try image.sharpen(sigma: Self.sigma(options.sharpen, longerSide: longerSide)) }
        if options.pixelate > 1 { try image.pixelate(size: options.pixelate) }
    }

    /// A URL's sigma, at most the image's longer side: a Gaussian that wide has already spread
    /// every pixel over the whole image, so a wider one only costs more (a URL may ask for 16384).
    static func sigma(_ sigma: Double, longerSide: Int) -> Double {
        min(sigma, Double(longerSide))
    }
}
