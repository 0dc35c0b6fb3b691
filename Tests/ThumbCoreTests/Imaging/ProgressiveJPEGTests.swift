import CMagickWand
import Testing
@testable import ThumbCore

/// A progressive JPEG decoded at 1/8 scale from its DC scans gives the pixels libjpeg gives the
/// whole file (luma exactly); anything else is read whole.
struct ProgressiveJPEGTests {
    /// A detailed picture (so that AC coefficients matter at every scale but 1/8), as a JPEG
    /// with the given chroma sampling, progressive or not.
    static func photo(width: Int = 1600, height: Int = 1200, sampling: String, progressive: Bool,
                      gray: Bool = false, icc: [UInt8]? = nil) -> [UInt8] {
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
        if let icc { _ = icc.withUnsafeBytes { MagickSetImageProfile(wand, "icc", $0.baseAddress, $0.count) } }
        MagickSetImageFormat(wand, "JPEG")
        MagickSetImageCompressionQuality(wand, 90)
        MagickSetInterlaceScheme(wand, progressive ? JPEGInterlace : NoInterlace)
        MagickSetOption(wand, "jpeg:sampling-factor", sampling)
        var length = 0
        let blob = MagickGetImageBlob(wand, &length)!
        defer { MagickRelinquishMemory(blob) }
        return Array(UnsafeBufferPointer(start: blob, count: length))
    }

    static func pixels(_ image: MagickImage) -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: image.width * image.height * 3)
        precondition(MagickExportImagePixels(image.wand, 0, 0, image.width, image.height, "RGB", CharPixel, &rgb) == MagickTrue)
        return rgb
    }

    static func pinged(_ bytes: [UInt8]) throws -> MagickImage {
        let image = MagickImage()
        try image.ping(bytes)
        return image
    }

    /// Every pixel is libjpeg's own, but with 4:2:0 chroma: libjpeg shades each chroma block's 2x2
    /// pixels from its first AC coefficients, where this repeats the block's value. This picture's
    /// chroma changes at every pixel, the worst case (a photo's thumbnail: PhotoTests).
    @Test(arguments: [("1x1", false, 0.0, 0.0), ("1x1", true, 0, 0), ("2x1", false, 0, 0), ("2x2", false, 16, 1)])
    func anEighthFromTheDCScansIsTheWholeFilesEighth(sampling: String, gray: Bool, meanBound: Double, lumaBound: Double) throws {
        // Given a progressive JPEG and a hint that makes libjpeg decode at 1/8
        let source = Self.photo(sampling: sampling, progressive: true, gray: gray)
        let hint = (width: 200, height: 150)

        // When it is read from its DC scans, and whole by libjpeg at 1/8
        let fromScans = MagickImage()
        #expect(fromScans.readProgressiveJPEGAtEighth(source, header: try Self.pinged(source), hint: hint))
        let whole = MagickImage()
        whole.setOption("jpeg:size", "\(hint.width)x\(hint.height)")
        try whole.read(source)

        // Then both are 200 x 150, of one colourspace, and the same pixels within the bounds
        #expect(fromScans.width == 200 && fromScans.height == 150)
        #expect(whole.width == 200 && whole.height == 150)
        #expect(fromScans.colorspace == whole.colorspace)
        let ours = Self.pixels(fromScans), libjpegs = Self.pixels(whole)
        let differences = zip(ours, libjpegs).map { abs(Int($0) - Int($1)) }
        let mean = Double(differences.reduce(0, +)) / Double(differences.count)
        #expect(mean <= meanBound, "mean difference \(mean)")
        // and luma, what the eye resolves, is libjpeg's but for rounding and clipped colours
        func luma(_ rgb: [UInt8], _ at: Int) -> Int { (299 * Int(rgb[at]) + 587 * Int(rgb[at + 1]) + 114 * Int(rgb[at + 2])) / 1000 }
        let lumaDifferences = stride(from: 0, to: ours.count, by: 3).map { abs(luma(ours, $0) - luma(libjpegs, $0)) }
        let lumaMean = Double(lumaDifferences.reduce(0, +)) / Double(lumaDifferences.count)
        #expect(lumaMean <= lumaBound, "mean luma difference \(lumaMean)")
    }

    @Test func profilesAndOrientationAreThoseImageMagickReads() throws {
        // Given a progressive JPEG with an ICC profile and EXIF orientation 6
        let source = GoldenImages.withOrientation(Self.photo(sampling: "2x2", progressive: true, icc: SRGBProfile.bytes), 6)

        // When it is read from its DC scans, and whole
        let image = MagickImage()
        #expect(image.readProgressiveJPEGAtEighth(source, header: try Self.pinged(source), hint: (200, 150)))
        let whole = MagickImage()
        try whole.read(source)

        // Then it has the orientation and the profiles ImageMagick's reader gives it
        #expect(image.orientation == RightTopOrientation && whole.orientation == RightTopOrientation)
        #expect(image.property("exif:Orientation") == "6" && whole.property("exif:Orientation") == "6")
        #expect(image.iccProfile == SRGBProfile.bytes && whole.iccProfile == SRGBProfile.bytes)
    }

    @Test func aBaselineJPEGOrALargerScaleIsReadWhole() throws {
        let baseline = Self.photo(sampling: "2x2", progressive: false)
        #expect(ProgressiveJPEG.eighth(baseline) == nil)

        // At 1/4, the AC coefficients count: nothing is read, and the caller reads the file
        let progressive = Self.photo(sampling: "2x2", progressive: true)
        let image = MagickImage()
        #expect(!image.readProgressiveJPEGAtEighth(progressive, header: try Self.pinged(progressive), hint: (400, 300)))
        #expect(image.frameCount == 0)
    }

    @Test func aTruncatedOrDamagedFileIsLeftToTheDecoder() {
        let source = Self.photo(width: 320, height: 240, sampling: "2x2", progressive: true)
        #expect(ProgressiveJPEG.eighth(source) != nil)
        // Every cut short of the end marker decodes to nothing, so libjpeg sees the cut file
        for length in stride(from: 0, to: source.count - 2, by: 97) {
            #expect(ProgressiveJPEG.eighth(Array(source.prefix(length))) == nil, "cut at \(length)")
        }
        // and bytes written over anywhere never make the decoder read out of bounds
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            var damaged = source
            for _ in 0..<8 { damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            _ = ProgressiveJPEG.eighth(damaged)
        }
    }
}
