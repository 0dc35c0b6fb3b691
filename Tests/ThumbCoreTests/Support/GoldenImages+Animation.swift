import CMagickWand
@testable import ThumbCore

extension GoldenImages {
    /// An animated GIF of `colors.count` frames, one solid colour each, `delay` hundredths apart.
    static func animation(colors: [String], width: Int, height: Int, delay: Int, format: ImageFormat = .gif) -> [UInt8] {
        _ = TestImages.jpeg(width: 1, height: 1)
        let wand = NewMagickWand()!
        defer { DestroyMagickWand(wand) }
        MagickSetSize(wand, width, height)
        for color in colors {
            precondition(MagickReadImage(wand, "xc:\(color)") == MagickTrue)
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
    /// A rectangle of one colour on an animation's canvas, in the source's pixels.
    struct Patch: Sendable {
        let color: RGBColor
        let x: Int, y: Int, width: Int, height: Int
    }

    /// An animation whose every frame is stored as only its patch, at the patch's offset on the
    /// canvas, as most GIFs on the web are (WebP's encoder cuts such rectangles itself); canvas
    /// no frame has drawn on is transparent. `dispose` is what a frame leaves for the next:
    /// NoneDispose keeps it, BackgroundDispose clears its rectangle. Delays are in hundredths of
    /// a second, `loops` counts plays as ImageMagick does (0: for ever).
    static func patchedAnimation(canvas: (width: Int, height: Int), frames: [Patch], delays: [Int], loops: Int,
                                 dispose: DisposeType = NoneDispose, format: ImageFormat) -> [UInt8] {
        TestImages.startImageMagick()
        let wand = NewMagickWand()!
        defer { DestroyMagickWand(wand) }
        for (patch, delay) in zip(frames, delays) {
            MagickSetSize(wand, patch.width, patch.height)
            precondition(MagickReadImage(wand, "xc:\(patch.color.magickName)") == MagickTrue)
            // Without an alpha channel, ImageMagick fills the uncovered canvas with the background colour.
            MagickSetImageAlphaChannel(wand, SetAlphaChannel)
            MagickSetImagePage(wand, canvas.width, canvas.height, patch.x, patch.y)
            MagickSetImageDelay(wand, delay)
            MagickSetImageDispose(wand, dispose)
            MagickSetImageIterations(wand, loops)
            MagickSetImageFormat(wand, format.magickName)
        }
        var length = 0
        let blob = MagickGetImagesBlob(wand, &length)!
        defer { MagickRelinquishMemory(blob) }
        return Array(UnsafeBufferPointer(start: blob, count: length))
    }
}
