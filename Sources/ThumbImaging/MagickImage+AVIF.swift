import CAVIF
import CMagickWand
import ThumbRequest
import ThumbRuntime

extension MagickImage {
    /// An AVIF of this picture, encoded by libaom through libavif at `quality` mapped as libheif
    /// maps it for libvips, and so for imgproxy (`FORMAT_QUALITY avif=63` means what it did): a
    /// constant-quality encode at cq-level ((100 - quality) x 63 + 50) / 100, of 63, for the
    /// colour and the alpha alike. 4:4:4 with `fullChroma`, else 4:2:0. Full-range YUV (BT.601),
    /// 8 bits, labelled sRGB, with the ICC profile the picture carries; libaom on this thread alone.
    /// An animation (every frame coalesced, of one size) becomes an AVIF image sequence with each
    /// frame's delay, the render's deadline checked between frames; libavif 0.11 writes no loop
    /// count, so it plays in a loop.
    func encodeAVIF(quality: Int, fullChroma: Bool, speed: Int) throws(ImagingFailure) -> [UInt8] {
        try checkEncoderBudget("an AVIF")
        guard let encoder = avifEncoderCreate() else { throw .internalFailure("libavif: out of memory") }
        defer { avifEncoderDestroy(encoder) }
        encoder.pointee.codecChoice = AVIF_CODEC_CHOICE_AOM
        encoder.pointee.maxThreads = 1
        encoder.pointee.speed = Int32(speed)
        encoder.pointee.timescale = 1000
        encoder.pointee.minQuantizer = Int32(AVIF_QUANTIZER_BEST_QUALITY)
        encoder.pointee.maxQuantizer = Int32(AVIF_QUANTIZER_WORST_QUALITY)
        encoder.pointee.minQuantizerAlpha = Int32(AVIF_QUANTIZER_BEST_QUALITY)
        encoder.pointee.maxQuantizerAlpha = Int32(AVIF_QUANTIZER_WORST_QUALITY)
        // libavif checks these against libaom's names when it encodes, and fails the encode then.
        avifEncoderSetCodecSpecificOption(encoder, "end-usage", "q")
        avifEncoderSetCodecSpecificOption(encoder, "cq-level", "\(Self.cqLevel(quality: quality))")
        let animated = frameCount > 1
        // Every frame of a sequence has alpha or none.
        let alpha = usesAlpha
        try forEachFrame { () throws(ImagingFailure) in
            try checkDeadline()
            let image = try avifFrame(fullChroma: fullChroma, alpha: alpha)
            defer { avifImageDestroy(image) }
            let added = avifEncoderAddImage(encoder, image, UInt64(animated ? delayMilliseconds : 1),
                                            animated ? avifAddImageFlags(AVIF_ADD_IMAGE_FLAG_NONE.rawValue)
                                                : avifAddImageFlags(AVIF_ADD_IMAGE_FLAG_SINGLE.rawValue))
            guard added == AVIF_RESULT_OK else { throw Self.avifFailure("cannot encode", added) }
        }
        var output = avifRWData(data: nil, size: 0)
        defer { avifRWDataFree(&output) }
        let finished = avifEncoderFinish(encoder, &output)
        guard finished == AVIF_RESULT_OK, let data = output.data else { throw Self.avifFailure("cannot encode", finished) }
        return Array(UnsafeBufferPointer(start: data, count: output.size))
    }

    /// The current frame as libavif's YUV, with alpha or without; the caller destroys it.
    private func avifFrame(fullChroma: Bool, alpha: Bool) throws(ImagingFailure) -> UnsafeMutablePointer<avifImage> {
        let (width, height) = (self.width, self.height)
        let map = alpha ? "RGBA" : "RGB"
        var pixels = try exportedPixels(map, for: "AVIF")
        guard let image = avifImageCreate(UInt32(width), UInt32(height), 8,
                                          fullChroma ? AVIF_PIXEL_FORMAT_YUV444 : AVIF_PIXEL_FORMAT_YUV420) else {
            throw .internalFailure("libavif: out of memory")
        }
        // sRGB said in the file (libavif leaves it unspecified), as libheif writes it for libvips.
        image.pointee.colorPrimaries = UInt16(AVIF_COLOR_PRIMARIES_BT709)
        image.pointee.transferCharacteristics = UInt16(AVIF_TRANSFER_CHARACTERISTICS_SRGB)
        image.pointee.matrixCoefficients = UInt16(AVIF_MATRIX_COEFFICIENTS_BT601)
        if let icc = iccProfile { icc.withUnsafeBufferPointer { avifImageSetProfileICC(image, $0.baseAddress, $0.count) } }
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.format = alpha ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB
        rgb.depth = 8
        rgb.rowBytes = UInt32(width * map.count)
        let converted = pixels.withUnsafeMutableBufferPointer { buffer in
            rgb.pixels = buffer.baseAddress
            return avifImageRGBToYUV(image, &rgb)
        }
        guard converted == AVIF_RESULT_OK else {
            avifImageDestroy(image)
            throw Self.avifFailure("cannot convert to YUV", converted)
        }
        return image
    }

    /// An AVIF of thumbd's own, decoded by libavif (libaom, one thread) to 8-bit RGBA, as
    /// avifdec decodes it: ImageMagick's HEIC coder converts its colour less exactly.
    static func decodedAVIF(_ bytes: [UInt8]) throws(ImagingFailure) -> (rgba: [UInt8], width: Int, height: Int) {
        guard let decoder = avifDecoderCreate(), let image = avifImageCreateEmpty() else {
            throw .internalFailure("libavif: out of memory")
        }
        defer {
            avifImageDestroy(image)
            avifDecoderDestroy(decoder)
        }
        decoder.pointee.maxThreads = 1
        let read = bytes.withUnsafeBufferPointer { avifDecoderReadMemory(decoder, image, $0.baseAddress, $0.count) }
        guard read == AVIF_RESULT_OK else { throw avifFailure("cannot decode", read) }
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.depth = 8
        rgb.rowBytes = image.pointee.width * 4
        let (width, height) = (Int(image.pointee.width), Int(image.pointee.height))
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        let converted = rgba.withUnsafeMutableBufferPointer { buffer in
            rgb.pixels = buffer.baseAddress
            return avifImageYUVToRGB(image, &rgb)
        }
        guard converted == AVIF_RESULT_OK else { throw avifFailure("cannot convert to RGB", converted) }
        return (rgba, width, height)
    }

    /// libheif's mapping of a 0-100 quality onto libaom's 0-63 quantiser scale (lower is finer).
    static func cqLevel(quality: Int) -> Int {
        ((100 - min(100, max(0, quality))) * 63 + 50) / 100
    }

    private static func avifFailure(_ what: String, _ result: avifResult) -> ImagingFailure {
        .internalFailure("libavif \(what): \(String(cString: avifResultToString(result)))")
    }
}
