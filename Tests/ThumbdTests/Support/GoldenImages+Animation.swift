import CMagickWand
import CWebP
@testable import ThumbRequest

extension GoldenImages {
    /// An animated GIF of `colors.count` frames, one solid colour each, `delay` hundredths apart.
    static func animation(colors: [String], width: Int, height: Int, delay: Int, format: ImageFormat = .gif) -> [UInt8] {
        animation(frames: colors.map { "xc:\($0)" }, width: width, height: height, delay: delay, format: format)
    }

    /// An animation of a frame per ImageMagick pseudo-image spec (e.g. `plasma:red-blue`).
    static func animation(frames: [String], width: Int, height: Int, delay: Int, format: ImageFormat = .gif) -> [UInt8] {
        _ = TestImages.jpeg(width: 1, height: 1)
        let wand = NewMagickWand()!
        defer { DestroyMagickWand(wand) }
        MagickSetSize(wand, width, height)
        for spec in frames {
            precondition(MagickReadImage(wand, spec) == MagickTrue)
            MagickSetImageDelay(wand, delay)
            MagickSetImageFormat(wand, format.magickName)  // every frame: the first one's is used
        }
        var length = 0
        let blob = MagickGetImagesBlob(wand, &length)!
        defer { MagickRelinquishMemory(blob) }
        return Array(UnsafeBufferPointer(start: blob, count: length))
    }

    /// Frame count, size of the first frame, the delay of each, and the colour at the centre of each.
    static func frames(of bytes: [UInt8]) -> (count: Int, width: Int, height: Int, delays: [Int], centers: [(Int, Int, Int)]) {
        _ = TestImages.jpeg(width: 1, height: 1)
        let wand = NewMagickWand()!
        defer { DestroyMagickWand(wand) }
        _ = bytes.withUnsafeBytes { MagickReadImageBlob(wand, $0.baseAddress, $0.count) }
        var delays: [Int] = [], centers: [(Int, Int, Int)] = []
        MagickResetIterator(wand)
        var size = (0, 0)
        while MagickNextImage(wand) == MagickTrue {
            if delays.isEmpty { size = (MagickGetImageWidth(wand), MagickGetImageHeight(wand)) }
            delays.append(MagickGetImageDelay(wand))
            let pixel = NewPixelWand()!
            MagickGetImagePixelColor(wand, size.0 / 2, size.1 / 2, pixel)
            centers.append((Int(PixelGetRed(pixel) * 255), Int(PixelGetGreen(pixel) * 255), Int(PixelGetBlue(pixel) * 255)))
            DestroyPixelWand(pixel)
        }
        return (delays.count, size.0, size.1, delays, centers)
    }
}

extension GoldenImages {
    /// A rectangle of one colour on an animation's canvas, in the source's pixels; nil is
    /// transparent (WebP only: a GIF frame's transparent pixels leave the canvas as it was).
    struct Patch: Sendable {
        let color: RGBColor?
        let x: Int, y: Int, width: Int, height: Int
    }

    /// An animation whose every frame is stored as only its patch, at the patch's offset on the
    /// canvas, as most GIFs on the web are; canvas no frame has drawn on is transparent.
    /// `dispose` is what a frame leaves for the next: NoneDispose keeps it, BackgroundDispose
    /// clears its rectangle. A WebP frame replaces its rectangle rather than being drawn over it
    /// when `blend` is false. Delays are in hundredths of a second, `loops` counts plays as
    /// ImageMagick and WebP do (0: for ever; a GIF's own loop count is one less).
    static func patchedAnimation(canvas: (width: Int, height: Int), frames: [Patch], delays: [Int], loops: Int,
                                 dispose: DisposeType = NoneDispose, blend: Bool = true,
                                 format: ImageFormat) -> [UInt8] {
        switch format {
        case .gif: patchedGIF(canvas: canvas, frames: frames, delays: delays, loops: loops, dispose: dispose)
        case .webp:
            patchedWebP(canvas: canvas, frames: frames, delays: delays, loops: loops, dispose: dispose, blend: blend)
        default: preconditionFailure("\(format) has no animation")
        }
    }

    private static func patchedGIF(canvas: (width: Int, height: Int), frames: [Patch], delays: [Int], loops: Int,
                                   dispose: DisposeType) -> [UInt8] {
        TestImages.startImageMagick()
        let wand = NewMagickWand()!
        defer { DestroyMagickWand(wand) }
        for (patch, delay) in zip(frames, delays) {
            guard let color = patch.color else { preconditionFailure("a GIF frame cannot clear its rectangle") }
            MagickSetSize(wand, patch.width, patch.height)
            precondition(MagickReadImage(wand, "xc:\(color.magickName)") == MagickTrue)
            // Without an alpha channel, ImageMagick fills the uncovered canvas with the background colour.
            MagickSetImageAlphaChannel(wand, SetAlphaChannel)
            MagickSetImagePage(wand, canvas.width, canvas.height, patch.x, patch.y)
            MagickSetImageDelay(wand, delay)
            MagickSetImageDispose(wand, dispose)
            MagickSetImageIterations(wand, loops)
            MagickSetImageFormat(wand, "GIF")
        }
        var length = 0
        let blob = MagickGetImagesBlob(wand, &length)!
        defer { MagickRelinquishMemory(blob) }
        return Array(UnsafeBufferPointer(start: blob, count: length))
    }

    /// Put together frame by frame with libwebp's muxer (ImageMagick 6 writes WebP frames with
    /// the wrong delays, and its own rectangles).
    private static func patchedWebP(canvas: (width: Int, height: Int), frames: [Patch], delays: [Int], loops: Int,
                                    dispose: DisposeType, blend: Bool) -> [UInt8] {
        let mux = WebPMuxNew()!
        defer { WebPMuxDelete(mux) }
        for (patch, delay) in zip(frames, delays) {
            precondition(patch.x % 2 == 0 && patch.y % 2 == 0, "WebP frames sit at even offsets")
            let pixel: [UInt8] = patch.color.map { [$0.red, $0.green, $0.blue, 255] } ?? [0, 0, 0, 0]
            let rgba = Array([[UInt8]](repeating: pixel, count: patch.width * patch.height).joined())
            var encoded: UnsafeMutablePointer<UInt8>?
            let (width, height) = (Int32(patch.width), Int32(patch.height))
            let size = WebPEncodeLosslessRGBA(rgba, width, height, width * 4, &encoded)
            precondition(size > 0)
            defer { WebPFree(encoded) }
            var frame = WebPMuxFrameInfo()
            frame.bitstream = WebPData(bytes: encoded, size: size)
            frame.id = WEBP_CHUNK_ANMF
            (frame.x_offset, frame.y_offset, frame.duration) = (Int32(patch.x), Int32(patch.y), Int32(delay * 10))
            frame.dispose_method = dispose == BackgroundDispose ? WEBP_MUX_DISPOSE_BACKGROUND : WEBP_MUX_DISPOSE_NONE
            frame.blend_method = blend ? WEBP_MUX_BLEND : WEBP_MUX_NO_BLEND
            precondition(WebPMuxPushFrame(mux, &frame, 1) == WEBP_MUX_OK)
        }
        var parameters = WebPMuxAnimParams(bgcolor: 0, loop_count: Int32(loops))
        precondition(WebPMuxSetAnimationParams(mux, &parameters) == WEBP_MUX_OK)
        precondition(WebPMuxSetCanvasSize(mux, Int32(canvas.width), Int32(canvas.height)) == WEBP_MUX_OK)
        var data = WebPData()
        precondition(WebPMuxAssemble(mux, &data) == WEBP_MUX_OK)
        defer { WebPDataClear(&data) }
        return Array(UnsafeBufferPointer(start: data.bytes, count: data.size))
    }
}
