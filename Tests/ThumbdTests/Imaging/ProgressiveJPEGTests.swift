import CMagickWand
import Testing
import ThumbdTestSupport
@testable import ThumbImaging
@testable import ThumbRequest
@testable import ThumbRuntime

/// A progressive JPEG decoded at 1/8 scale from its DC scans gives the pixels libjpeg gives the
/// whole file (luma exactly); anything else is read whole.
@Suite(.computing, .timeLimit(.minutes(5)))
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

    /// 64x48, progressive, 4:4:4, a restart marker every 5 MCUs (Pillow 12:
    /// `save(progressive=True, subsampling=0, restart_marker_blocks=5, quality=50)`): ImageMagick
    /// cannot write one, and cameras do.
    static let withRestarts = """
        ffd8ffe000104a46494600010100000100010000ffdb004300100b0c0e0c0a100e0d0e1211101318281a181616183123251d
        283a333d3c3933383740485c4e404457453738506d51575f626768673e4d71797064785c656763ffdb004301111212181518
        2f1a1a2f63423842636363636363636363636363636363636363636363636363636363636363636363636363636363636363
        6363636363636363ffc20011080030004003011100021101031101ffc4001900000301010100000000000000000000000203
        04050100ffc400190100020301000000000000000000000000030401020500ffdd00040005ffda000c030100021003100000
        01c3b5de62bcc4604f3816ffd0cb6e5e62f72998dd51a99bffd198eebfad24e51a6478cbffd2a0c5c46ba8011b9863614fff
        d316d36649e91dc9963074adffd44b2cd289270e4d3146e89bffd50b38b074a5ebed14956fffd6ea882f9c43af5f3035ccff
        d78cee599f6ec649e9073c5abfffd0f24c5ec0725f4bffc4001c100003000301010100000000000000000000010203112131
        1213ffda0008010100010502421212d993dfffd05229140847ffd14b66b4b5b6a4527fffd250217448bf3fffd35229148f26
        3927a7ffd49251ed4c9592719fffd5777652d4c925727fffd69465cba26499297d57ffd78207dac97f9c449fffd0893c9acd
        b3ffc40020110002020202030101000000000000000000010203111204102131711322ffda0008010301013f014210bc1cab
        32f43fffd04c4c52108fffd15e0db0b239b93cb13133ffd25210bc08e55985a9ffd34262642a9c8f47ffd4ead9ef36faaaa7
        33ffd5aeb8c3d1c8b7587def933d61f4ffd628a73fd48c993936e67f0fffd7eb933da7f0a6bddf5fffd0c9659f9c72554e3c
        ccffc40023110002020201030501000000000000000000010211217131031213222332416134ffda0008010201013f01e0e0
        ba2fcda21e9c9fffd0ba3ba8eebd8f03c1ffd16fcda383e2374395ecffd272a1e07ef686e88e327fffd36e86ef63951d921f
        bda3ffd4781ba3e286ef6460d9ffd5518f4f813a64b04b02c33fffd693bd90e9fdb24e894a84fcabf0ffd79609605c7e908d
        b24e8fffd093a3fa1d7d11e9f6e647ffc4002110000005030501000000000000000000000010112031012151020312417161
        ffda0008010100063f02620fffd06fffd1253fffd2620fffd3395f0bffd4666b81ffd5bc61bfffd61c744f753f07ffd73b4d
        60bfffd00a136edf47ffc4001f100002010403010100000000000000000000011110213151417181b191ffda000801010001
        3f21412878cc5ae4ffd0a0c9d8a29fffd1f28a43d1291cd29fb3ffd22517cd2b5363ffd329bba70b97d89e4fffd44a0ef3fc
        24ecb68bffd5b4bc68c167e5d8514c3e5d8fffd69fb326f82b767e2c3fffd7410c7d58f84943ffd0084d78496c7642723fff
        da000c0301000200030000001020e1ffd0f36bffd1d4fbffd2a84bffd37311ffd4a3bdffd54113ffd6c435ffd768d3ffd028
        7fffc40024110002010303040301000000000000000000011121314110517181a1b1d161e1f1f0ffda0008010301013f1051
        74b8844c55f3f9e4ffd0d2e21453ffd1268f7c5463bcf4a33fffd224134225737e17df83ffd3620d1c6c72243fffd4484366
        698e04e0abd96e7fffd5a92577c8a6a9ad1efb090912aa6b47bec7ffd64e0a1b185bfd79e2e823495f0eb9f5d0ffd7820a6a
        b51d73eba17bb2b927ffd013973c738e44e43dbfbf0fffc40024110001020504030101000000000000000001003111217181
        b1104151e16191f0a1d1ffda0008010201013f1025495293442f18e08bbee0ce427fffd02b293f67ef3572525fffd1a10bc6
        3822efb8332628288180d1fc4fde6aff00ffd24494a90bc63822efb83356794fffd35fe67ef3575471c2a8e90bc63822efb8
        33ffd43d3434bee7ef3579b30e57ffd5644f9d2094b4cfffd6f89fbcd5e171ec3567c57b463822efb833ffd725259bcbfbde
        6aeeac1f47ffd04e24012f68c7045df70661de78e3fabfffc400241000020201030402030000000000000000011100214131
        517161a1b1d1c1f08191f1ffda0008010100013f10444c4cd82080c0d2dcbef99fffd04e2271361ed11133ffd1e104019048
        024a8085849f11389b2f69ffd24622a56c045a95f599e07ded3fffd352a9b6f68b5510ac611073a77953013fffd45a8b519a
        b0d70952bda691d3a1487538fe4fffd5d449d1c3f7a660881b2f988512a10201c2f99fffd6a15ed2fed20ed1d7c73a25544a
        a94407bc39e0cfffd7428950ea3f31cfe7d450d8f500dcf788553fffd04aa8da836cabe8880d641022715b0ebaf13fffd9
        """

    @Test func predictionsStartOverAtEachRestartMarker() throws {
        let source = [UInt8](hex: Self.withRestarts)
        #expect(source.count == 1699 && source[0...1] == [0xFF, 0xD8])
        let ours = MagickImage()
        #expect(ours.readProgressiveJPEGAtEighth(source, header: try Self.pinged(source), hint: (8, 6)))
        let whole = MagickImage()
        whole.setOption("jpeg:size", "8x6")
        try whole.read(source)
        #expect(Self.pixels(ours) == Self.pixels(whole))
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

    @Test func aTruncatedOrDamagedFileIsLeftToTheDecoder() throws {
        let source = Self.photo(width: 320, height: 240, sampling: "2x2", progressive: true)
        #expect(ProgressiveJPEG.eighth(source) != nil)
        // Every cut short of the end marker decodes to nothing, so libjpeg sees the cut file
        for length in stride(from: 0, to: source.count - 2, by: 97) {
            #expect(ProgressiveJPEG.eighth(Array(source.prefix(length))) == nil, "cut at \(length)")
        }
        // and a DC scan short of its frame's blocks, the file otherwise whole, is libjpeg's to judge
        // (it fills the rest with grey and complains: a damaged source, never a thumbnail)
        let firstScan = try #require((0..<(source.count - 1)).first { source[$0] == 0xFF && source[$0 + 1] == 0xDA })
        let shortScan = Array(source[..<(firstScan + 40)]) + Array(source[(firstScan + 400)...])
        #expect(ProgressiveJPEG.eighth(shortScan) == nil)
        var options = ProcessingOptions()
        options.width = 40
        #expect(throws: ImagingFailure.self) {
            try Renderer(configuration: .unhurried).render(shortScan, sourceFormat: .jpeg, options: options)
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
