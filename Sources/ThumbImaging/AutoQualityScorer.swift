import ThumbRequest
import ThumbRuntime

/// The DSSIM of autoquality's candidates against the unencoded result: on the result itself where
/// it has at most `maxPixels`, else on its sample (AutoQualitySample). A JPEG candidate is then
/// encoded again on the sample's mosaic, at its quality and chroma: JPEG codes each block from its
/// own pixels at the quality's tables, so the mosaic's blocks come out as the result's do, and no
/// full-size candidate is decoded. WebP's and AVIF's encoders adapt their quantisers and filters
/// to the whole picture, so a mosaic of tiles comes out unlike them: the search's own candidate is
/// decoded (libwebp, libavif) and the tiles cut from it. DSSIM's planes are bounded by `maxPixels` either way, fixed before the search starts; a
/// decode, while it is cut, by the result.
struct AutoQualityScorer {
    let format: ImageFormat
    let options: ProcessingOptions
    /// nil: the result is scored whole, from the search's own encodes.
    private let sample: (geometry: AutoQualitySample, mosaic: MagickImage)?
    private let reference: DSSIM
    /// The pixels each comparison covers.
    let pixels: Int

    init(result: MagickImage, format: ImageFormat, options: ProcessingOptions, maxPixels: Int,
         deadline: RenderDeadline) throws(ImagingFailure) {
        self.format = format
        self.options = options
        if let geometry = AutoQualitySample(width: result.width, height: result.height, maxPixels: maxPixels) {
            let mosaic = try result.mosaic(of: geometry)
            mosaic.watch(deadline)
            sample = (geometry, mosaic)
        } else {
            sample = nil
        }
        let scored = sample?.mosaic ?? result
        pixels = scored.width * scored.height
        try deadline.check()
        reference = DSSIM(reference: try scored.rgbPixels())
    }

    /// The DSSIM of the candidate the search encoded at `quality` as `bytes`.
    func score(quality: Int, fullChroma: Bool, bytes: [UInt8]) throws(ImagingFailure) -> Double {
        guard let sample else { return reference.score(try MagickImage.decodedPixels(bytes, format: format)) }
        if format == .webp || format == .avif {
            return reference.score(try MagickImage.decodedPixels(bytes, format: format, sample: sample.geometry))
        }
        let encoded = try sample.mosaic.encode(as: format, quality: quality, fullChroma: fullChroma, options: options)
        return reference.score(try MagickImage.decodedPixels(encoded, format: format))
    }
}
