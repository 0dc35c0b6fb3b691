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
