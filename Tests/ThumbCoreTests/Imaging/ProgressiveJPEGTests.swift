import CMagickWand
import Testing
@testable import ThumbCore

/// A progressive JPEG decoded at 1/8 scale from its DC scans (and its chroma's scans) gives the
/// very pixels the whole file gives; anything else is read whole.
struct ProgressiveJPEGTests {
    /// A detailed picture (so that AC coefficients matter at every scale but 1/8), as a JPEG
    /// with the given chroma sampling, progressive or not.
    static func photo(width: Int = 1600, height: Int = 1200, sampling: String, progressive: Bool,
                      gray: Bool = false) -> [UInt8] {
        TestImages.startImageMagick()
        let wand = NewMagickWand()!
        defer { DestroyMagickWand(wand) }
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let at = (y * width + x) * 3
                pixels[at] = UInt8(truncatingIfNeeded: x * y / 7)
                pixels[at + 1] = UInt8(truncatingIfNeeded: (x ^ y) * 3)
                pixels[at + 2] = UInt8(truncatingIfNeeded: (x / 9 + y / 5) * 11)
            }
        }
        let background = NewPixelWand()
        defer { DestroyPixelWand(background) }
        precondition(MagickNewImage(wand, width, height, background) == MagickTrue)
        precondition(MagickImportImagePixels(wand, 0, 0, width, height, "RGB", CharPixel, pixels) == MagickTrue)
        if gray { MagickSetImageType(wand, GrayscaleType) }
        MagickSetImageFormat(wand, "JPEG")
        MagickSetImageCompressionQuality(wand, 90)
        MagickSetInterlaceScheme(wand, progressive ? JPEGInterlace : NoInterlace)
        MagickSetOption(wand, "jpeg:sampling-factor", sampling)
        var length = 0
        let blob = MagickGetImageBlob(wand, &length)!
        defer { MagickRelinquishMemory(blob) }
        return Array(UnsafeBufferPointer(start: blob, count: length))
    }

    static func isFiltered(_ bytes: [UInt8]) -> Bool {
        ProgressiveJPEG.withoutFullResolutionACScans(bytes) != nil
    }

    static func pixels(_ image: MagickImage) -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: image.width * image.height * 3)
        precondition(MagickExportImagePixels(image.wand, 0, 0, image.width, image.height, "RGB", CharPixel, &rgb) == MagickTrue)
        return rgb
    }

    @Test(arguments: [("2x2", false), ("2x1", false), ("1x1", false), ("1x1", true)])
    func anEighthFromTheDCScansIsTheWholeFilesEighth(sampling: String, gray: Bool) throws {
        // Given a progressive JPEG and a hint that makes libjpeg decode at 1/8
        let source = Self.photo(sampling: sampling, progressive: true, gray: gray)
        let hint = (width: 200, height: 150)
        let reduced = ProgressiveJPEG.withoutFullResolutionACScans(source)?.count ?? source.count
        #expect(reduced < source.count / 2, "\(reduced) of \(source.count) bytes kept")

        // When it is read from the reduced scans, and whole
        let fromScans = MagickImage()
        fromScans.setOption("jpeg:size", "\(hint.width)x\(hint.height)")
        #expect(fromScans.readProgressiveJPEGAtEighth(source, width: 1600, height: 1200, hint: hint))
        let whole = MagickImage()
        whole.setOption("jpeg:size", "\(hint.width)x\(hint.height)")
        try whole.read(source)

        // Then both are the same 200 x 150 pixels
        #expect(fromScans.width == 200 && fromScans.height == 150)
        #expect(whole.width == 200 && whole.height == 150)
        #expect(Self.pixels(fromScans) == Self.pixels(whole))
    }

    @Test func aBaselineJPEGOrALargerScaleIsReadWhole() throws {
        let baseline = Self.photo(sampling: "2x2", progressive: false)
        #expect(!Self.isFiltered(baseline))

        // At 1/4, the AC coefficients count: nothing is read, and the caller reads the file
        let progressive = Self.photo(sampling: "2x2", progressive: true)
        let image = MagickImage()
        image.setOption("jpeg:size", "400x300")
        #expect(!image.readProgressiveJPEGAtEighth(progressive, width: 1600, height: 1200, hint: (400, 300)))
        #expect(image.frameCount == 0)
    }

    @Test func aTruncatedOrDamagedFileIsLeftToTheDecoder() {
        let source = Self.photo(width: 320, height: 240, sampling: "2x2", progressive: true)
        #expect(Self.isFiltered(source))
        // Every cut short of the end marker parses to nothing, so the decoder sees the cut file
        for length in stride(from: 0, to: source.count - 2, by: 97) {
            #expect(!Self.isFiltered(Array(source.prefix(length))), "cut at \(length)")
        }
        // and bytes written over anywhere never make the parser read out of bounds
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            var damaged = source
            for _ in 0..<8 { damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            _ = ProgressiveJPEG.withoutFullResolutionACScans(damaged)
        }
    }
}
