import CMagickWand
import ThumbRuntime

extension MagickImage {
    /// The most pixels an encoder thumbd drives itself takes (libavif, libimagequant): neither can
    /// be stopped once it starts, and each holds the picture again outside ImageMagick's limits, so
    /// a result past this is refused before it starts. A 16 MP AVIF render took 5.7 s here at speed
    /// 6, within the default MAX_RENDER_SECONDS; a WebP of it 2.8 s.
    static let maxEncoderPixels = 16_000_000

    /// Refuses, before any copy is made, a picture over `maxEncoderPixels` for `encode` ("an AVIF").
    func checkEncoderBudget(_ encode: String) throws(ImagingFailure) {
        guard width * height <= Self.maxEncoderPixels else {
            throw .overLimit("\(encode) of \(width)x\(height) is over the limit of \(Self.maxEncoderPixels) pixels \(encode) encode takes")
        }
    }

    /// This image's pixels, 8 bits a channel in `map`'s order ("RGB", "RGBA"), row after row.
    func exportedPixels(_ map: String, for what: String) throws(ImagingFailure) -> [UInt8] {
        let (width, height) = (self.width, self.height)
        var pixels = [UInt8](repeating: 0, count: width * height * map.count)
        let exported = pixels.withUnsafeMutableBytes {
            MagickExportImagePixels(wand, 0, 0, width, height, map, CharPixel, $0.baseAddress)
        }
        try check(exported, or: { .internalFailure("\(what): cannot export pixels: \($0)") })
        return pixels
    }

    /// Whether a pixel of any frame is not opaque. ImageMagick keeps an alpha channel on after
    /// steps that needed one, opaque or not, and an encoder given it would spend bytes on it.
    var usesAlpha: Bool {
        let exception = AcquireExceptionInfo()
        defer { DestroyExceptionInfo(exception) }
        var used = false
        forEachFrame {
            used = used || hasAlpha && IsOpaqueImage(GetImageFromMagickWand(wand), exception) == MagickFalse
        }
        return used
    }
}
