import CMagickWand
import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbImaging
@testable import ThumbRequest
@testable import ThumbRuntime

/// JPEG XL through libjxl: the quality asked decides the bytes, as imgproxy's quality means for
/// libvips; the effort reaches the encoder; alpha is kept only where it is used; every file decodes
/// with the reference decoder, djxl.
@Suite(.computing, .timeLimit(.minutes(5)))
struct JXLTests {
    static func render(_ source: [UInt8], _ sourceFormat: SourceFormat = .png, quality: Int? = nil,
                       effort: Int = 5, resizing: ResizingType = .fill) throws -> [UInt8] {
        var options = ProcessingOptions()
        (options.width, options.height, options.resizingType, options.format) = (300, 200, resizing, .jxl)
        (options.quality, options.jxlEffort) = (quality ?? 0, effort)
        return try Renderer(configuration: .unhurried).render(source, sourceFormat: sourceFormat, options: options).bytes
    }

    /// What jxlinfo says of `jxl`, and djxl's decode of it as a PNG.
    static func referenceDecode(_ jxl: [UInt8]) throws -> (info: String, png: [UInt8]) {
        let directory = try TestDirectory()
        let (input, output) = (directory.path + "/in.jxl", directory.path + "/out.png")
        try Data(jxl).write(to: URL(fileURLWithPath: input))
        let info = try ProcessRunner.run("/usr/bin/jxlinfo", [input], timeout: 60)
        let decoded = try ProcessRunner.run("/usr/bin/djxl", [input, output], timeout: 60)
        #expect(info.status == 0 && decoded.status == 0, "jxlinfo, djxl: \(info.errors) \(decoded.errors)")
        return (info.output, Array(try Data(contentsOf: URL(fileURLWithPath: output))))
    }

    @Test func theQualityAskedDecidesTheBytesAndTheLook() throws {
        // Given a picture with edges and colour, and its lossless render
        let lossless = try WebPEffortTests.render(ChromaTests.colourful, .png, as: .png, effort: 6)

        // When it is written as JPEG XL at q30, imgproxy's default 77 and q95
        let files = try [30, 77, 95].map { try Self.render(ChromaTests.colourful, quality: $0) }

        // Then each is larger than the one before and nearer the lossless render, and djxl reads each
        #expect(files[0].count < files[1].count && files[1].count < files[2].count, "\(files.map(\.count))")
        let psnr = try files.map { try FilterTests.psnr(lossless, try Self.referenceDecode($0).png) }
        #expect(psnr[0] < psnr[1] && psnr[1] < psnr[2], "\(psnr)")
        // and no quality asked is imgproxy's default, 77
        #expect(try Self.render(ChromaTests.colourful) == files[1])
    }

    @Test func imgproxysQualityIsLibvipssDistance() {
        // libvips's mapping for libjxl 0.7, by which imgproxy encodes: 77 is distance 2.17
        #expect(abs(MagickImage.jxlDistance(quality: 77) - 2.17) < 0.001)
        #expect(abs(MagickImage.jxlDistance(quality: 100) - 0.1) < 0.001)
        #expect(abs(MagickImage.jxlDistance(quality: 30) - 6.4) < 0.001)
        // below 30 the parabola, which meets the line at 30 and reaches 25 at 0
        #expect(abs(MagickImage.jxlDistance(quality: 29) - 6.5077) < 0.001)
        #expect(MagickImage.jxlDistance(quality: 0) == 25)
    }

    @Test func theEffortReachesTheEncoder() throws {
        let fast = try Self.render(ChromaTests.colourful, quality: 77, effort: 1)
        let thorough = try Self.render(ChromaTests.colourful, quality: 77, effort: 7)
        #expect(fast != thorough)
        #expect(try Self.referenceDecode(fast).png.count > 0 && Self.referenceDecode(thorough).png.count > 0)
    }

    @Test func transparencyIsKeptAndAnOpaquePictureHasNoAlpha() throws {
        // Given a logo on transparency and an opaque picture, written as JPEG XL
        let logo = try Self.render(PalettePNGTests.logo, resizing: .fit)
        let opaque = try Self.render(ChromaTests.colourful)

        // Then the logo's alpha is kept, transparent off the card and opaque on it
        let decoded = try Self.referenceDecode(logo)
        #expect(decoded.info.contains("8-bit RGBA"), "\(decoded.info)")
        let probe = try ImageProbe(decoded.png)
        #expect(probe.alpha(x: 2, y: 2) == 0)
        #expect(probe.alpha(x: 150, y: 60) == 1)
        // and the opaque picture carries none, labelled sRGB
        let info = try Self.referenceDecode(opaque).info
        #expect(info.contains("8-bit RGB\n") && info.contains("sRGB transfer function"), "\(info)")
    }

    @Test func aResultOverThePixelBudgetIsRefusedBeforeTheEncode() throws {
        // Given a picture one row over the pixels an encoder thumbd drives takes
        TestImages.startImageMagick()
        let image = MagickImage()
        MagickSetSize(image.wand, 4000, MagickImage.maxEncoderPixels / 4000 + 1)
        #expect(MagickReadImage(image.wand, "xc:red") == MagickTrue)

        // Then its encode is refused, saying why, as a limit and not a failure
        #expect(throws: ImagingFailure.overLimit("a JPEG XL of 4000x4001 is over the limit of 16000000 pixels a JPEG XL encode takes")) {
            try image.encodeJXL(quality: 77, effort: 1)
        }
    }

    @Test func aJPEGXLSourceIsRefusedByName() throws {
        // Given a JPEG XL file (thumbd's own) and the codestream without its container
        let jxl = try Self.render(ChromaTests.colourful)

        // Then the sniffer does not take it for a readable format, and says why
        #expect(ContentSniffer.format(of: jxl) == nil)
        #expect(ContentSniffer.refusal(of: jxl) == "is a JPEG XL image, which thumbd writes but does not read")
        #expect(ContentSniffer.refusal(of: [0x00, 0x00, 0x00, 0x0c] + Array("JXL ".utf8) + [0x0d, 0x0a, 0x87, 0x0a])
            == "is a JPEG XL image, which thumbd writes but does not read")
        #expect(ContentSniffer.refusal(of: Array("<svg>".utf8)).hasPrefix("is not a JPEG, PNG"))
    }
}
