import CMagickWand
import Testing
import ThumbdTestSupport
@testable import ThumbImaging
@testable import ThumbRequest

/// A JPEG keeps its chroma whole (4:4:4) from `subsample_below`'s quality (90 by default) and
/// halves it both ways (4:2:0) below; a grey picture is one channel, 1x1; a WebP is converted to
/// YUV the sharp way, which keeps colour edges closer to the source.
@Suite(.computing, .timeLimit(.minutes(5)))
struct ChromaTests {
    /// Saturated colours meeting at sharp edges: what chroma subsampling smears.
    static let colourful = GoldenImages.render(width: 320, height: 240, background: "gradient:orange-navy",
                                               format: .png) { wand in
        guard let board = NewMagickWand() else { return }
        defer { DestroyMagickWand(board) }
        MagickSetSize(board, 320, 240)
        MagickReadImage(board, "pattern:checkerboard")
        MagickCompositeImage(wand, board, MultiplyCompositeOp, 0, 0)
    }

    static func rendered(_ source: [UInt8], _ options: String, ext: String) throws -> [UInt8] {
        TestImages.startImageMagick()
        let path = "/insecure/rs:fill:300:200/\(options)/plain/http://h/a@\(ext)"
        let request = try RequestPathParser(verifier: .insecure, baseURL: nil,
                                            policy: Renderer.encodePolicy).parse(rawPath: path)
        let format = try #require(ContentSniffer.format(of: source))
        return try Renderer(configuration: .unhurried).render(source, sourceFormat: format, options: request.options).bytes
    }

    /// Each component's sampling factors, `HxV`, from the JPEG's start of frame.
    static func sampling(_ jpeg: [UInt8]) throws -> [String] {
        var at = 2
        while at + 4 <= jpeg.count, jpeg[at] == 0xFF {
            let marker = jpeg[at + 1]
            let length = Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3])
            if (0xC0...0xC2).contains(marker) {
                let count = Int(jpeg[at + 9])
                return (0..<count).map { index in
                    let factors = jpeg[at + 11 + index * 3]
                    return "\(factors >> 4)x\(factors & 0x0F)"
                }
            }
            at += 2 + length
        }
        Issue.record("no start of frame")
        return []
    }

    @Test(arguments: [("q:40", "2x2"), ("q:80", "2x2"), ("q:89", "2x2"), ("q:90", "1x1"), ("q:95", "1x1"),
                      ("q:100", "1x1")])
    func jpegChromaIsWholeFromQuality90(_ quality: String, _ luma: String) throws {
        // Given a colourful source rendered as a JPEG at a quality
        let jpeg = try Self.rendered(Self.colourful, quality, ext: "jpg")

        // Then its luma is sampled as libvips would, its chroma once per block
        #expect(try Self.sampling(jpeg) == [luma, "1x1", "1x1"])
    }

    @Test(arguments: [("q:95/ssb:101", "2x2"), ("q:80/ssb:0", "1x1"), ("q:80/ssb:80", "1x1"), ("q:80/ssb:81", "2x2")])
    func subsampleBelowSetsTheRule(_ options: String, _ luma: String) throws {
        // Given the rule moved by a URL's subsample_below
        let jpeg = try Self.rendered(Self.colourful, options, ext: "jpg")

        // Then the JPEG follows it
        #expect(try Self.sampling(jpeg) == [luma, "1x1", "1x1"])
    }

    @Test(arguments: ["q:80", "q:95"])
    func aGreyPictureIsOneChannelUnsubsampled(_ quality: String) throws {
        // Given grey sources: a grey JPEG, and grey pixels in an RGB PNG
        let greyJPEG = TestImages.draw("gradient:black-white", width: 400, height: 300, format: .jpeg)
        let greyRGB = TestImages.draw("gradient:gray20-gray80", width: 400, height: 300, format: .png)

        // Then each is written as one channel, sampled 1x1
        #expect(try Self.sampling(try Self.rendered(greyJPEG, quality, ext: "jpg")) == ["1x1"])
        #expect(try Self.sampling(try Self.rendered(greyRGB, quality, ext: "jpg")) == ["1x1"])
    }

    @Test(arguments: [50, 79, 95])
    func webpConvertsToYUVTheSharpWay(quality: Int) throws {
        // Given the lossless render, thumbd's WebP of it, and ImageMagick's plain WebP of the same pixels
        let lossless = try Self.rendered(Self.colourful, "q:\(quality)", ext: "png")
        let ours = try Self.rendered(Self.colourful, "q:\(quality)", ext: "webp")
        let wand = try #require(NewMagickWand())
        defer { DestroyMagickWand(wand) }
        _ = lossless.withUnsafeBytes { MagickReadImageBlob(wand, $0.baseAddress, $0.count) }
        MagickSetImageFormat(wand, "WEBP")
        MagickSetImageCompressionQuality(wand, quality)
        var length = 0
        let blob = try #require(MagickGetImageBlob(wand, &length))
        defer { MagickRelinquishMemory(blob) }
        let plain = Array(UnsafeBufferPointer(start: blob, count: length))

        // Then ours is the closer to the lossless render
        let (sharp, usual) = (try FilterTests.psnr(lossless, ours), try FilterTests.psnr(lossless, plain))
        #expect(sharp > usual + 0.2, "sharp YUV \(sharp) dB, plain \(usual) dB")
    }
}
