import Testing
import ThumbdTestSupport
@testable import ThumbImaging
@testable import ThumbRequest

/// WEBP_EFFORT is libwebp's method: a harder search writes the same picture in fewer bytes, a
/// still through ImageMagick and an animation through libwebp's own encoder alike.
@Suite(.computing, .timeLimit(.minutes(5)))
struct WebPEffortTests {
    static func render(_ source: [UInt8], _ sourceFormat: SourceFormat, as format: ImageFormat, effort: Int) throws -> [UInt8] {
        TestImages.startImageMagick()
        var configuration = Renderer.Configuration.unhurried
        configuration.maxAnimationFrames = 10
        var options = ProcessingOptions()
        (options.width, options.height, options.resizingType) = (300, 200, .fill)
        (options.format, options.quality, options.webpEffort) = (format, 80, effort)
        return try Renderer(configuration: configuration).render(source, sourceFormat: sourceFormat, options: options).bytes
    }

    @Test func aHarderSearchWritesAStillInFewerBytesOfTheSamePicture() throws {
        // Given a picture with edges and colour, its lossless render, and its WebP at the least and
        // the most effort
        let source = ChromaTests.colourful
        let lossless = try Self.render(source, .png, as: .png, effort: 6)
        let (fast, thorough) = (try Self.render(source, .png, as: .webp, effort: 1),
                                try Self.render(source, .png, as: .webp, effort: 6))

        // Then the thorough one is a tenth smaller at least (here 4,338 bytes against 6,212), and as
        // close to the lossless render within 1 dB of PSNR (here 38.4 against 39.0)
        #expect(10 * thorough.count <= 9 * fast.count)
        let (fastPSNR, thoroughPSNR) = (try FilterTests.psnr(lossless, fast), try FilterTests.psnr(lossless, thorough))
        #expect(thoroughPSNR > fastPSNR - 1)
    }

    @Test func anAnimationIsWrittenWithTheSameEffort() throws {
        // Given an animation of frames with edges and gradients
        let source = GoldenImages.animation(frames: ["pattern:checkerboard", "radial-gradient:lime-purple"], width: 320,
                                            height: 240, delay: 20)

        // When it is written as an animated WebP at the least and the most effort
        let (fast, thorough) = (try Self.render(source, .gif, as: .webp, effort: 1),
                                try Self.render(source, .gif, as: .webp, effort: 6))

        // Then both hold both frames, and the thorough one is smaller
        #expect(GoldenImages.frames(of: fast).count == 2 && GoldenImages.frames(of: thorough).count == 2)
        #expect(thorough.count < fast.count)
    }
}
