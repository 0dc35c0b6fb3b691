import CMagickWand
@testable import ThumbCore

/// Images drawn with ImageMagick for tests, and a probe that reads what thumbd answered.
enum TestImages {
    private static let started: Void = MagickEnvironment.start(limits: MagickEnvironment.Limits())

    /// A picture drawn by an ImageMagick pseudo-image spec, e.g. `gradient:red-blue`.
    static func draw(_ spec: String, width: Int, height: Int, format: ImageFormat) -> [UInt8] {
        _ = started
        let wand = NewMagickWand()
        defer { DestroyMagickWand(wand) }
        MagickSetSize(wand, width, height)
        precondition(MagickReadImage(wand, spec) == MagickTrue, "cannot draw \(spec)")
        MagickSetImageFormat(wand, format.magickName)
        var length = 0
        let blob = MagickGetImageBlob(wand, &length)!
        defer { MagickRelinquishMemory(blob) }
        return Array(UnsafeBufferPointer(start: blob, count: length))
    }

    static func jpeg(width: Int, height: Int) -> [UInt8] {
        draw("gradient:red-blue", width: width, height: height, format: .jpeg)
    }

    /// Left half red, right half blue: where a crop was taken from shows in the colours.
    static func halves(width: Int, height: Int, format: ImageFormat) -> [UInt8] {
        _ = started
        let wand = NewMagickWand()
        defer { DestroyMagickWand(wand) }
        MagickSetSize(wand, width / 2, height)
        precondition(MagickReadImage(wand, "xc:red") == MagickTrue)
        precondition(MagickReadImage(wand, "xc:blue") == MagickTrue)
        MagickResetIterator(wand)
        let joined = MagickAppendImages(wand, MagickFalse)!
        defer { DestroyMagickWand(joined) }
        MagickSetImageFormat(joined, format.magickName)
        var length = 0
        let blob = MagickGetImageBlob(joined, &length)!
        defer { MagickRelinquishMemory(blob) }
        return Array(UnsafeBufferPointer(start: blob, count: length))
    }
}

/// What an answered image is: format, size, and the colour at a point.
final class ImageProbe {
    let format: String
    let width: Int
    let height: Int
    private let wand: OpaquePointer

    init(_ bytes: [UInt8]) throws {
        _ = TestImages.jpeg(width: 1, height: 1)  // starts ImageMagick
        let wand = NewMagickWand()!
        self.wand = wand
        let ok = bytes.withUnsafeBytes { MagickReadImageBlob(wand, $0.baseAddress, $0.count) }
        guard ok == MagickTrue else { throw StackError("answer is not an image (\(bytes.count) bytes)") }
        let name = MagickGetImageFormat(wand)!
        defer { MagickRelinquishMemory(name) }
        format = String(cString: name)
        width = MagickGetImageWidth(wand)
        height = MagickGetImageHeight(wand)
    }

    deinit { DestroyMagickWand(wand) }

    /// Red, green, blue from 0 to 255 at pixel (x, y).
    func color(x: Int, y: Int) -> (red: Int, green: Int, blue: Int) {
        let pixel = NewPixelWand()
        defer { DestroyPixelWand(pixel) }
        MagickGetImagePixelColor(wand, x, y, pixel)
        return (Int(PixelGetRed(pixel) * 255), Int(PixelGetGreen(pixel) * 255), Int(PixelGetBlue(pixel) * 255))
    }
}
