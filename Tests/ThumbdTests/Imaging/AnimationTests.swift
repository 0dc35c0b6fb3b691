import CMagickWand
import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbImaging
@testable import ThumbRequest
@testable import ThumbRuntime

/// Animated GIF and WebP: kept animated when allowed, every frame resized, delays kept,
/// bounded by the frame limit and the pixel budget.
@Suite(.computing, .timeLimit(.minutes(5)))
struct AnimationTests {
    static let source = GoldenImages.animation(colors: ["red", "lime", "blue"], width: 120, height: 80, delay: 25)

    static func render(_ source: [UInt8], format: ImageFormat, maxFrames: Int, maxPixels: Int = 50_000_000,
                       sharpen: Double = 0, width: Int = 60, sourceFormat: SourceFormat = .gif,
                       quality: Int = 0) throws -> [UInt8] {
        var configuration = Renderer.Configuration.unhurried
        configuration.maxAnimationFrames = maxFrames
        configuration.maxSourcePixels = maxPixels
        var options = ProcessingOptions()
        options.width = width
        options.format = format
        options.quality = quality
        options.sharpen = sharpen
        return try Renderer(configuration: configuration).render(source, sourceFormat: sourceFormat, options: options).bytes
    }

    @Test(arguments: [ImageFormat.gif, .webp])
    func anAllowedAnimationKeepsEveryFrameResizedWithItsDelay(format: ImageFormat) throws {
        let frames = GoldenImages.frames(of: try Self.render(Self.source, format: format, maxFrames: 10))
        #expect(frames.count == 3)
        #expect((frames.width, frames.height) == (60, 40))
        #expect(frames.delays == [25, 25, 25])
        #expect(frames.centers[0].0 > 200 && frames.centers[1].1 > 200 && frames.centers[2].2 > 200)
    }

    /// A pan across a photo: `count` frames of 150x100, each a window of 450x300 of the photo
    /// (scaled to 900x600) 18 pixels right and 5 down of the one before, scaled to a third.
    static func pan(across photo: [UInt8], count: Int) -> [UInt8] {
        _ = TestImages.jpeg(width: 1, height: 1)
        let wand = NewMagickWand()!
        defer { DestroyMagickWand(wand) }
        for index in 0..<count {
            _ = photo.withUnsafeBytes { MagickReadImageBlob(wand, $0.baseAddress, $0.count) }
            MagickResizeImage(wand, 900, 600, LanczosFilter, 1)
            MagickCropImage(wand, 450, 300, 18 * index, 5 * index)
            MagickSetImagePage(wand, 450, 300, 0, 0)
            MagickResizeImage(wand, 150, 100, LanczosFilter, 1)
            MagickSetImageDelay(wand, 10)
            MagickSetImageFormat(wand, "WEBP")
            MagickSetOption(wand, "webp:lossless", "true")
        }
        var length = 0
        let blob = MagickGetImagesBlob(wand, &length)!
        defer { MagickRelinquishMemory(blob) }
        return Array(UnsafeBufferPointer(start: blob, count: length))
    }

    @Test(.enabled(if: AutoQualityTests.havePhoto, "no photos in THUMBD_TEST_PHOTOS; deploy/test fetches them"))
    func aPanKeepsEveryFrameNearItsSourceAsWebP() throws {
        // Given a pan of 20 frames across a photo, which libwebp wrote as changes from the frame
        // before, leaving out the small ones, until the frames drifted from their source
        let photo = [UInt8](try Data(contentsOf: URL(fileURLWithPath: AutoQualityTests.photos + "/Bridge_by_Sander_Klootwijk.jpg")))
        let source = Self.pan(across: photo, count: 20)
        let original = MagickImage()
        #expect(try original.readAnimatedWebP(source, frames: 30))

        // When it is written as an animated WebP at q60
        let webp = try Self.render(source, format: .webp, maxFrames: 30, width: 150, sourceFormat: .webp, quality: 60)

        // Then each frame, as libwebp composes it, is as near its source as the first is
        let decoded = MagickImage()
        #expect(try decoded.readAnimatedWebP(webp, frames: 30))
        #expect(decoded.frameCount == 20)
        var errors: [Double] = []
        MagickResetIterator(original.wand)
        decoded.forEachFrame {
            _ = MagickNextImage(original.wand)
            var distortion = 0.0
            if let difference = MagickCompareImages(decoded.wand, original.wand, MeanAbsoluteErrorMetric, &distortion) {
                DestroyMagickWand(difference)
            }
            errors.append(distortion)
        }
        #expect(errors.allSatisfy { $0 < 2 * errors[0] + 0.01 }, "\(errors)")
    }

    @Test(arguments: [ImageFormat.webp, .avif])
    func aDeadlinePastEndsAnAnimatedEncodeBetweenFrames(format: ImageFormat) throws {
        // Given the animation's frames, watched by a render deadline already past
        let image = MagickImage()
        try image.read(Self.source)
        let deadline = RenderDeadline(seconds: 0)
        image.watch(deadline)

        // Then its encode ends with the render's timeout, not a file
        #expect(throws: deadline.error) {
            try image.encode(as: format, quality: 80, fullChroma: true, options: ProcessingOptions())
        }
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
        #expect(throws: ImagingFailure.self) { try Self.render(cut, format: .gif, maxFrames: 10) }
    }

    @Test func aFormatWithoutAnimationGetsTheFirstFrame() throws {
        let frames = GoldenImages.frames(of: try Self.render(Self.source, format: .png, maxFrames: 10))
        #expect(frames.count == 1)
    }

    @Test func moreFramesThanAllowedIsRefusedBeforeDecoding() throws {
        #expect(throws: ImagingFailure.overLimit("animation has 3 frames, over the limit of 2")) {
            try Self.render(Self.source, format: .gif, maxFrames: 2)
        }
    }

    @Test func thePixelBudgetCountsEveryFrame() throws {
        // 120 x 80 = 9,600 pixels a frame: one frame fits 20,000, three do not
        #expect(throws: ImagingFailure.self) { try Self.render(Self.source, format: .gif, maxFrames: 10, maxPixels: 20_000) }
        #expect(try Self.render(Self.source, format: .gif, maxFrames: 1, maxPixels: 20_000).count > 0)
    }
}
