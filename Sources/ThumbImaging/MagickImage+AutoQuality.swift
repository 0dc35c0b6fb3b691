import CMagickWand
import CWebP
import ThumbRequest
import ThumbRuntime

extension MagickImage {
    /// The quality the options' autoquality chooses for this still in `format`, and its bytes,
    /// each candidate's JPEG chroma as `subsample_below` says for its quality, or, spending by
    /// slope where `subsample_below` does not fix the chroma, 4:4:4 and 4:2:0 each searched. For
    /// `dssim`, candidates are scored by an AutoQualityScorer, within the scoring resolution.
    func encodeSearchingQuality(as format: ImageFormat, options: ProcessingOptions,
                                deadline: RenderDeadline) throws(ImagingFailure) -> AutoQualitySearch.Result {
        let settings = options.autoQuality
        let scorer = settings.method == .dssim
            ? try AutoQualityScorer(result: self, format: format, options: options,
                                    maxPixels: Int(settings.scoreResolution * 1_000_000), deadline: deadline)
            : nil
        let search = AutoQualitySearch(
            method: settings.method, target: settings.target, allowedError: settings.allowedError,
            qualities: settings.qualities(for: format),
            slope: settings.spendsBySlope ? settings.dssimSlope : 0, pixels: width * height,
            chromas: options.autoQualitySearchesChroma(for: format)
                ? [{ _ in true }, { _ in false }] : [{ options.keepsFullChroma(format, atQuality: $0) }],
            deadline: deadline,
            encode: { quality, fullChroma throws(ImagingFailure) in
                try self.encode(as: format, quality: quality, fullChroma: fullChroma, options: options)
            },
            score: { quality, fullChroma, bytes throws(ImagingFailure) in
                guard let scorer else { preconditionFailure("only dssim scores") }
                return try scorer.score(quality: quality, fullChroma: fullChroma, bytes: bytes)
            })
        var result = try search.run()
        result.chosen.scoredPixels = scorer?.pixels
        return result
    }

    /// The tiles of `sample` side by side, 8-bit as the encoders are given them, as an image of
    /// its own (unwatched: the caller gives it the render's deadline).
    func mosaic(of sample: AutoQualitySample) throws(ImagingFailure) -> MagickImage {
        let map = hasAlpha ? "RGBA" : "RGB"
        var pixels = [UInt8](repeating: 0, count: sample.width * sample.height * map.count)
        var tile = [UInt8](repeating: 0, count: sample.tileWidth * sample.tileHeight * map.count)
        for (index, rect) in sample.tiles.enumerated() {
            let exported = tile.withUnsafeMutableBytes {
                MagickExportImagePixels(wand, rect.x, rect.y, rect.width, rect.height, map, CharPixel, $0.baseAddress)
            }
            try check(exported, or: { .internalFailure("autoquality: cannot export a tile: \($0)") })
            tile.withUnsafeBufferPointer { tile in
                sample.copyTile(index, channels: map.count, from: tile, start: 0, rowBytes: sample.tileWidth * map.count,
                                into: &pixels)
            }
        }
        let mosaic = MagickImage()
        let made = pixels.withUnsafeBytes {
            MagickConstituteImage(mosaic.wand, sample.width, sample.height, map, CharPixel, $0.baseAddress)
        }
        try mosaic.check(made, or: { .internalFailure("autoquality: cannot make the scoring sample: \($0)") })
        return mosaic
    }

    /// This image's pixels as 8-bit RGB, premultiplied by alpha where there is any.
    func rgbPixels() throws(ImagingFailure) -> PixelBuffer {
        let (width, height, alpha) = (self.width, self.height, hasAlpha)
        let pixels = try exportedPixels(alpha ? "RGBA" : "RGB", for: "autoquality")
        guard alpha else { return PixelBuffer(width: width, height: height, rgb: pixels) }
        return pixels.withUnsafeBufferPointer { PixelBuffer(premultiplying: $0, width: width, height: height) }
    }

    /// An encoded candidate's pixels, as its viewer will see them: of a WebP or an AVIF, only
    /// `sample`'s tiles where one is given (the whole decoded, 4 bytes a pixel, only while they
    /// are cut out), each by its own library as the reference decoders do.
    static func decodedPixels(_ bytes: [UInt8], format: ImageFormat,
                              sample: AutoQualitySample? = nil) throws(ImagingFailure) -> PixelBuffer {
        switch format {
        case .webp:
            var width: Int32 = 0, height: Int32 = 0
            guard let rgba = bytes.withUnsafeBufferPointer({ WebPDecodeRGBA($0.baseAddress, $0.count, &width, &height) })
            else { throw .internalFailure("autoquality: libwebp cannot decode its own WebP") }
            defer { WebPFree(rgba) }
            let pixels = UnsafeBufferPointer(start: rgba, count: Int(width) * Int(height) * 4)
            return pixelBuffer(pixels, width: Int(width), height: Int(height), sample: sample)
        case .avif:
            let decoded = try decodedAVIF(bytes)
            return decoded.rgba.withUnsafeBufferPointer {
                pixelBuffer($0, width: decoded.width, height: decoded.height, sample: sample)
            }
        default:
            precondition(sample == nil, "only a WebP or an AVIF is cut to a sample")
            let image = MagickImage()
            try image.read(bytes)
            return try image.rgbPixels()
        }
    }

    /// Decoded RGBA as DSSIM compares it: whole, or cut to `sample`'s tiles.
    private static func pixelBuffer(_ rgba: UnsafeBufferPointer<UInt8>, width: Int, height: Int,
                                    sample: AutoQualitySample?) -> PixelBuffer {
        guard let sample else { return PixelBuffer(premultiplying: rgba, width: width, height: height) }
        var tiles = [UInt8](repeating: 0, count: sample.width * sample.height * 4)
        for (index, tile) in sample.tiles.enumerated() {
            sample.copyTile(index, channels: 4, from: rgba, start: (tile.y * width + tile.x) * 4, rowBytes: width * 4,
                            into: &tiles)
        }
        return tiles.withUnsafeBufferPointer { PixelBuffer(premultiplying: $0, width: sample.width, height: sample.height) }
    }
}
