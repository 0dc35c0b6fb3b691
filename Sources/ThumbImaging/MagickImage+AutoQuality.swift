import CMagickWand
import CWebP
import ThumbRequest
import ThumbRuntime

extension MagickImage {
    /// The quality the options' autoquality chooses for this still in `format`, and its bytes,
    /// each candidate's JPEG chroma as `subsample_below` says for its quality, or, spending by
    /// slope where `subsample_below` does not fix the chroma, 4:4:4 and 4:2:0 each searched. For
    /// `dssim`, every candidate is decoded again (libwebp for WebP, ImageMagick's reader
    /// otherwise) and compared with this image's own pixels.
    func encodeSearchingQuality(as format: ImageFormat, options: ProcessingOptions,
                                deadline: RenderDeadline) throws(ThumbError) -> AutoQualitySearch.Result {
        let settings = options.autoQuality
        let reference = settings.method == .dssim ? DSSIM(reference: try rgbPixels()) : nil
        let search = AutoQualitySearch(
            method: settings.method, target: settings.target, allowedError: settings.allowedError,
            qualities: settings.qualities(for: format),
            slope: settings.spendsBySlope ? settings.dssimSlope : 0, pixels: width * height,
            chromas: options.autoQualitySearchesChroma(for: format)
                ? [{ _ in true }, { _ in false }] : [options.keepsFullChroma(atQuality:)],
            deadline: deadline,
            encode: { quality, fullChroma throws(ThumbError) in
                try self.encode(as: format, quality: quality, fullChroma: fullChroma, webpEffort: options.webpEffort)
            },
            score: { bytes throws(ThumbError) in
                guard let reference else { preconditionFailure("only dssim scores") }
                return reference.score(try Self.decodedPixels(bytes, format: format))
            })
        return try search.run()
    }

    /// This image's pixels as 8-bit RGB, premultiplied by alpha where there is any.
    func rgbPixels() throws(ThumbError) -> PixelBuffer {
        let (width, height, alpha) = (self.width, self.height, hasAlpha)
        let map = alpha ? "RGBA" : "RGB"
        var pixels = [UInt8](repeating: 0, count: width * height * map.count)
        let exported = pixels.withUnsafeMutableBytes {
            MagickExportImagePixels(wand, 0, 0, width, height, map, CharPixel, $0.baseAddress)
        }
        try check(exported, or: { .internalFailure("autoquality: cannot export pixels: \($0)") })
        guard alpha else { return PixelBuffer(width: width, height: height, rgb: pixels) }
        return pixels.withUnsafeBufferPointer { PixelBuffer(premultiplying: $0, width: width, height: height) }
    }

    /// An encoded candidate's pixels, as its viewer will see them.
    static func decodedPixels(_ bytes: [UInt8], format: ImageFormat) throws(ThumbError) -> PixelBuffer {
        if format == .webp {
            var width: Int32 = 0, height: Int32 = 0
            guard let rgba = bytes.withUnsafeBufferPointer({ WebPDecodeRGBA($0.baseAddress, $0.count, &width, &height) })
            else { throw .internalFailure("autoquality: libwebp cannot decode its own WebP") }
            defer { WebPFree(rgba) }
            let pixels = UnsafeBufferPointer(start: rgba, count: Int(width) * Int(height) * 4)
            return PixelBuffer(premultiplying: pixels, width: Int(width), height: Int(height))
        }
        let image = MagickImage()
        try image.read(bytes)
        return try image.rgbPixels()
    }
}
