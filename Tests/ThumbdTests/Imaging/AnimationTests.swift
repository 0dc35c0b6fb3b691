import CMagickWand
import Testing
@testable import ThumbImaging
@testable import ThumbRequest
@testable import ThumbRuntime

/// Animated GIF and WebP: kept animated when allowed, every frame resized, delays kept,
/// bounded by the frame limit and the pixel budget.
@Suite(.computing, .timeLimit(.minutes(5)))
struct AnimationTests {
    static let source = GoldenImages.animation(colors: ["red", "lime", "blue"], width: 120, height: 80, delay: 25)

    static func render(_ source: [UInt8], format: ImageFormat, maxFrames: Int, maxPixels: Int = 50_000_000,
                       sharpen: Double = 0) throws -> [UInt8] {
        var configuration = Renderer.Configuration.unhurried
        configuration.maxAnimationFrames = maxFrames
        configuration.maxSourcePixels = maxPixels
        var options = ProcessingOptions()
        options.width = 60
        options.format = format
        options.sharpen = sharpen
        return try Renderer(configuration: configuration).render(source, sourceFormat: .gif, options: options).bytes
    }

    @Test(arguments: [ImageFormat.gif, .webp])
    func anAllowedAnimationKeepsEveryFrameResizedWithItsDelay(format: ImageFormat) throws {
        let frames = GoldenImages.frames(of: try Self.render(Self.source, format: format, maxFrames: 10))
        #expect(frames.count == 3)
        #expect((frames.width, frames.height) == (60, 40))
        #expect(frames.delays == [25, 25, 25])
        #expect(frames.centers[0].0 > 200 && frames.centers[1].1 > 200 && frames.centers[2].2 > 200)
    }

    @Test(arguments: [0.5, 40])
    func aSharpenedAnimationKeepsEachFrameItsOwn(sigma: Double) throws {
        let frames = GoldenImages.frames(of: try Self.render(Self.source, format: .gif, maxFrames: 10, sharpen: sigma))
        #expect(frames.count == 3)
        #expect(frames.centers[0].0 > 200 && frames.centers[1].1 > 200 && frames.centers[2].2 > 200)
    }

    @Test func byDefaultOnlyTheFirstFrameIsRendered() throws {
        let frames = GoldenImages.frames(of: try Self.render(Self.source, format: .gif, maxFrames: 1))
        #expect(frames.count == 1)
        #expect(frames.centers[0].0 > 200)
    }

    @Test func byDefaultOnlyTheFirstFrameIsDecoded() throws {
        // Given the animation cut short inside its last frame
        let cut = Array(Self.source.dropLast(10))

        // When it is rendered, first frame only and animated
        let first = GoldenImages.frames(of: try Self.render(cut, format: .gif, maxFrames: 1))

        // Then the first frame, all that is decoded, renders; the animation cannot be
        #expect(first.count == 1 && first.centers[0].0 > 200)
        #expect(throws: ThumbError.self) { try Self.render(cut, format: .gif, maxFrames: 10) }
    }

    @Test func aFormatWithoutAnimationGetsTheFirstFrame() throws {
        let frames = GoldenImages.frames(of: try Self.render(Self.source, format: .png, maxFrames: 10))
        #expect(frames.count == 1)
    }

    @Test func moreFramesThanAllowedIsRefusedBeforeDecoding() throws {
        #expect(throws: ThumbError.overLimit("animation has 3 frames, over the limit of 2")) {
            try Self.render(Self.source, format: .gif, maxFrames: 2)
        }
    }

    @Test func thePixelBudgetCountsEveryFrame() throws {
        // 120 x 80 = 9,600 pixels a frame: one frame fits 20,000, three do not
        #expect(throws: ThumbError.self) { try Self.render(Self.source, format: .gif, maxFrames: 10, maxPixels: 20_000) }
        #expect(try Self.render(Self.source, format: .gif, maxFrames: 1, maxPixels: 20_000).count > 0)
    }
}
