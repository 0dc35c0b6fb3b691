import CMagickWand
import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbImaging
@testable import ThumbRequest
@testable import ThumbRuntime

/// AVIF through libavif and libaom: the quality asked decides the bytes, as imgproxy's quality
/// means for libheif; the chroma follows AVIF_SUBSAMPLE; alpha is kept; every file decodes with
/// the reference decoder, avifdec.
@Suite(.computing, .timeLimit(.minutes(5)))
struct AVIFTests {
    static func render(_ source: [UInt8], _ sourceFormat: SourceFormat = .png, quality: Int,
                       subsample: AVIFSubsample = .off) throws -> [UInt8] {
        var options = ProcessingOptions()
        (options.width, options.height, options.resizingType, options.format) = (300, 200, .fill, .avif)
        (options.quality, options.avifSubsample) = (quality, subsample)
        return try Renderer(configuration: .unhurried).render(source, sourceFormat: sourceFormat, options: options).bytes
    }

    /// What avifdec says of `avif` (`--info`), and its decode as a PNG.
    static func referenceDecode(_ avif: [UInt8]) throws -> (info: String, png: [UInt8]) {
        let directory = try TestDirectory()
        let (input, output) = (directory.path + "/in.avif", directory.path + "/out.png")
        try Data(avif).write(to: URL(fileURLWithPath: input))
        let info = try ProcessRunner.run("/usr/bin/avifdec", ["--info", input], timeout: 60)
        let decoded = try ProcessRunner.run("/usr/bin/avifdec", [input, output], timeout: 60)
        #expect(info.status == 0 && decoded.status == 0, "avifdec: \(info.errors) \(decoded.errors)")
        return (info.output, Array(try Data(contentsOf: URL(fileURLWithPath: output))))
    }

    @Test func theQualityAskedDecidesTheBytesAndTheLook() throws {
        // Given a picture with edges and colour, and its lossless render
        let lossless = try WebPEffortTests.render(ChromaTests.colourful, .png, as: .png, effort: 6)

        // When it is written as AVIF at q30, imgproxy's default 63 and q90
        let files = try [30, 63, 90].map { try Self.render(ChromaTests.colourful, quality: $0) }

        // Then each is larger than the one before and nearer the lossless render, and avifdec reads each
        #expect(files[0].count < files[1].count && files[1].count < files[2].count, "\(files.map(\.count))")
        let psnr = try files.map { try FilterTests.psnr(lossless, try Self.referenceDecode($0).png) }
        #expect(psnr[0] < psnr[1] && psnr[1] < psnr[2], "\(psnr)")
    }

    @Test func imgproxysQualityIsLibheifsQuantiser() {
        // libheif's mapping, by which libvips (and so imgproxy) encodes: 63 is cq-level 23
        #expect(MagickImage.cqLevel(quality: 63) == 23)
        #expect(MagickImage.cqLevel(quality: 100) == 0 && MagickImage.cqLevel(quality: 0) == 63)
        #expect(MagickImage.cqLevel(quality: 90) == 6)
    }

    @Test(arguments: [(AVIFSubsample.off, 63, "YUV444"), (.on, 95, "YUV420"), (.auto, 63, "YUV420"), (.auto, 90, "YUV444")])
    func theChromaFollowsTheSetting(subsample: AVIFSubsample, quality: Int, format: String) throws {
        let avif = try Self.render(ChromaTests.colourful, quality: quality, subsample: subsample)
        let info = try Self.referenceDecode(avif).info
        #expect(info.contains("Format         : \(format)"), "\(info)")
        // labelled sRGB: BT.709 primaries, the sRGB transfer, BT.601 coefficients
        #expect(info.contains("Color Primaries: 1") && info.contains("Transfer Char. : 13") && info.contains("Matrix Coeffs. : 6"))
    }

    @Test func transparencyIsKept() throws {
        // Given a logo on transparency, written as AVIF
        var options = ProcessingOptions()
        (options.width, options.height, options.resizingType, options.format) = (300, 200, .fit, .avif)
        let avif = try Renderer(configuration: .unhurried).render(PalettePNGTests.logo, sourceFormat: .png, options: options).bytes

        // Then avifdec finds its alpha, transparent where the logo is not and opaque on the card
        let decoded = try Self.referenceDecode(avif)
        #expect(decoded.info.contains("Alpha          : Premultiplied") || decoded.info.contains("Alpha          : Not premultiplied"))
        let probe = try ImageProbe(decoded.png)
        #expect(probe.alpha(x: 2, y: 2) == 0)
        #expect(probe.alpha(x: 150, y: 60) == 1)
    }

    @Test func anAnimationBecomesAnImageSequenceWithItsDelays() throws {
        // Given a three-frame animation (red, lime, blue, 250 ms each), allowed to stay animated
        let avif = try AnimationTests.render(AnimationTests.source, format: .avif, maxFrames: 10)

        // Then avifdec finds a sequence of three frames of the resized size with their delays
        let info = try Self.referenceDecode(avif).info
        #expect(info.contains("3 frames") && info.contains("Resolution     : 60x40"), "\(info)")
        #expect(info.components(separatedBy: "[duration 0.25 (250 timescales)]").count - 1 == 3, "\(info)")
        // without an alpha plane where every pixel is opaque
        #expect(info.contains("Alpha          : Absent"))
        // and each frame is its own colour
        let directory = try TestDirectory()
        try Data(avif).write(to: URL(fileURLWithPath: directory.path + "/a.avif"))
        for (index, expected) in [(255, 0, 0), (0, 255, 0), (0, 0, 255)].enumerated() {
            let png = directory.path + "/\(index).png"
            let decoded = try ProcessRunner.run("/usr/bin/avifdec", ["--index", "\(index)", directory.path + "/a.avif", png],
                                                timeout: 60)
            #expect(decoded.status == 0, "\(decoded.errors)")
            let probe = try ImageProbe(Array(try Data(contentsOf: URL(fileURLWithPath: png))))
            let color = probe.color(x: 30, y: 20)
            #expect(abs(color.red - expected.0) < 16 && abs(color.green - expected.1) < 16 && abs(color.blue - expected.2) < 16,
                    "frame \(index): \(color)")
        }
        // while with one frame allowed it is a still
        let still = try AnimationTests.render(AnimationTests.source, format: .avif, maxFrames: 1)
        #expect(!(try Self.referenceDecode(still).info.contains("Image Sequence")))
    }

    @Test func aResultOverThePixelBudgetIsRefusedBeforeTheEncode() throws {
        // Given a picture one row over the pixels an AVIF encode takes
        TestImages.startImageMagick()
        let image = MagickImage()
        MagickSetSize(image.wand, 4000, MagickImage.maxEncoderPixels / 4000 + 1)
        #expect(MagickReadImage(image.wand, "xc:red") == MagickTrue)

        // Then its encode is refused, saying why, as a limit and not a failure
        #expect(throws: ImagingFailure.overLimit("an AVIF of 4000x4001 is over the limit of 16000000 pixels an AVIF encode takes")) {
            try image.encodeAVIF(quality: 63, fullChroma: true, speed: 9)
        }
    }
}
