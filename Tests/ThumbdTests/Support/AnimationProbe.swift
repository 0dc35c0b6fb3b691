import ThumbdTestSupport
import CMagickWand
import CWebP

/// An answered image as it is stored, frame by frame (size, place on the canvas, delay, loop
/// count, as ImageMagick reads them), and as a viewer shows it: the whole canvas after each
/// frame is drawn, by libwebp's animation decoder for WebP (ImageMagick 6 ignores WebP's
/// blending) and by ImageMagick's coalesce for the rest.
struct AnimationProbe {
    struct Frame: Equatable {
        let width: Int, height: Int, x: Int, y: Int
        let canvasWidth: Int, canvasHeight: Int
        let delayMilliseconds: Int
    }

    struct Pixel {
        let red: Int, green: Int, blue: Int, alpha: Int
    }

    let stored: [Frame]
    /// Plays as ImageMagick counts them: 0 for ever, else GIF's loop count plus one, WebP's own.
    let loops: Int
    let canvas: (width: Int, height: Int)
    /// RGBA, 8 bits a channel, one buffer per frame shown.
    private let shown: [[UInt8]]

    init(_ bytes: [UInt8]) throws {
        TestImages.startImageMagick()
        let wand = NewMagickWand()!
        defer { DestroyMagickWand(wand) }
        let ok = bytes.withUnsafeBytes { MagickReadImageBlob(wand, $0.baseAddress, $0.count) }
        guard ok == MagickTrue else { throw StackError("answer is not an image (\(bytes.count) bytes)") }
        var stored: [Frame] = []
        MagickResetIterator(wand)
        while MagickNextImage(wand) == MagickTrue {
            var canvasWidth = 0, canvasHeight = 0, x = 0, y = 0
            MagickGetImagePage(wand, &canvasWidth, &canvasHeight, &x, &y)
            let ticks = max(1, MagickGetImageTicksPerSecond(wand))
            stored.append(Frame(width: MagickGetImageWidth(wand), height: MagickGetImageHeight(wand), x: x, y: y,
                                canvasWidth: canvasWidth, canvasHeight: canvasHeight,
                                delayMilliseconds: MagickGetImageDelay(wand) * 1000 / ticks))
        }
        MagickSetFirstIterator(wand)
        self.stored = stored
        loops = MagickGetImageIterations(wand)
        let format = MagickGetImageFormat(wand)!
        defer { MagickRelinquishMemory(format) }
        (canvas, shown) = String(cString: format) == "WEBP" ? try Self.playWebP(bytes) : try Self.coalesce(wand)
    }

    /// The colour at (x, y) of the `frame`th picture shown, 0 to 255 a channel.
    func pixel(frame: Int, x: Int, y: Int) -> Pixel {
        let at = (y * canvas.width + x) * 4
        let rgba = shown[frame]
        return Pixel(red: Int(rgba[at]), green: Int(rgba[at + 1]), blue: Int(rgba[at + 2]), alpha: Int(rgba[at + 3]))
    }

    var framesShown: Int { shown.count }

    private static func playWebP(_ bytes: [UInt8]) throws -> ((width: Int, height: Int), [[UInt8]]) {
        try bytes.withUnsafeBufferPointer { buffer in
            var data = WebPData(bytes: buffer.baseAddress, size: buffer.count)
            var options = WebPAnimDecoderOptions()
            guard WebPAnimDecoderOptionsInit(&options) != 0 else { throw StackError("libwebp: wrong demux version") }
            options.color_mode = MODE_RGBA
            guard let decoder = WebPAnimDecoderNew(&data, &options) else { throw StackError("libwebp cannot play it") }
            defer { WebPAnimDecoderDelete(decoder) }
            var info = WebPAnimInfo()
            WebPAnimDecoderGetInfo(decoder, &info)
            let canvas = (width: Int(info.canvas_width), height: Int(info.canvas_height))
            var frames: [[UInt8]] = []
            var pixels: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            while WebPAnimDecoderGetNext(decoder, &pixels, &timestamp) != 0, let pixels {
                frames.append(Array(UnsafeBufferPointer(start: pixels, count: canvas.width * canvas.height * 4)))
            }
            return (canvas, frames)
        }
    }

    private static func coalesce(_ wand: OpaquePointer) throws -> ((width: Int, height: Int), [[UInt8]]) {
        guard let whole = MagickCoalesceImages(wand) else { throw StackError("ImageMagick cannot coalesce it") }
        defer { DestroyMagickWand(whole) }
        let canvas = (width: MagickGetImageWidth(whole), height: MagickGetImageHeight(whole))
        var frames: [[UInt8]] = []
        MagickResetIterator(whole)
        while MagickNextImage(whole) == MagickTrue {
            var rgba = [UInt8](repeating: 0, count: canvas.width * canvas.height * 4)
            MagickExportImagePixels(whole, 0, 0, canvas.width, canvas.height, "RGBA", CharPixel, &rgba)
            frames.append(rgba)
        }
        return (canvas, frames)
    }
}
