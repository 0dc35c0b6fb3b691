import CMagickWand
import ThumbRuntime

extension MagickImage {
    /// The most pixels an encoder thumbd drives itself takes (libavif, libimagequant): neither can
    /// be stopped once it starts, and each holds the picture again outside ImageMagick's limits, so
    /// a result past this is refused before it starts. A 16 MP AVIF render took 5.7 s here at speed
    /// 6, within the default MAX_RENDER_SECONDS; a WebP of it 2.8 s.
    static let maxEncoderPixels = 16_000_000

    /// Refuses, before any copy is made, a picture over `maxEncoderPixels` for `encode` ("an AVIF").
    func checkEncoderBudget(_ encode: String) throws(ThumbError) {
        guard width * height <= Self.maxEncoderPixels else {
            throw .overLimit("\(encode) of \(width)x\(height) is over the limit of \(Self.maxEncoderPixels) pixels \(encode) encode takes")
        }
    }

    /// This image's pixels, 8 bits a channel in `map`'s order ("RGB", "RGBA"), row after row.
    func exportedPixels(_ map: String, for what: String) throws(ThumbError) -> [UInt8] {
        let (width, height) = (self.width, self.height)
        var pixels = [UInt8](repeating: 0, count: width * height * map.count)
        let exported = pixels.withUnsafeMutableBytes {
            MagickExportImagePixels(wand, 0, 0, width, height, map, CharPixel, $0.baseAddress)
        }
        try check(exported, or: { .internalFailure("\(what): cannot export pixels: \($0)") })
        return pixels
    }

    /// This image's pixels as RGBA where any is not opaque, else as RGB (`channels` says which):
    /// ImageMagick keeps an alpha channel on after steps that needed one, opaque or not, and an
    /// encoder would spend bytes on it.
    func exportedPixelsWithAlphaIfUsed(for what: String) throws(ThumbError) -> (pixels: [UInt8], channels: Int) {
        guard hasAlpha else { return (try exportedPixels("RGB", for: what), 3) }
        var pixels = try exportedPixels("RGBA", for: what)
        let opaque = pixels.withUnsafeBufferPointer { rgba in
            stride(from: 3, to: rgba.count, by: 4).allSatisfy { rgba[$0] == 255 }
        }
        guard opaque else { return (pixels, 4) }
        pixels.withUnsafeMutableBufferPointer { buffer in
            for pixel in 0..<buffer.count / 4 {
                buffer[pixel * 3] = buffer[pixel * 4]
                buffer[pixel * 3 + 1] = buffer[pixel * 4 + 1]
                buffer[pixel * 3 + 2] = buffer[pixel * 4 + 2]
            }
        }
        pixels.removeLast(pixels.count / 4)
        return (pixels, 3)
    }
}
