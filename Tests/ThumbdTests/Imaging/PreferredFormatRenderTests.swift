import Testing
import ThumbdTestSupport
@testable import ThumbImaging
@testable import ThumbRequest
@testable import ThumbRuntime

/// A URL that names no format, rendered in a preferred format: what the result has (alpha,
/// padding, an animation) picks it, as imgproxy's determineOutputFormat does.
@Suite(.computing, .timeLimit(.minutes(5)))
struct PreferredFormatRenderTests {
    static func render(_ source: [UInt8], _ sourceFormat: SourceFormat, preferred: [ImageFormat] = [.jpeg, .png, .gif],
                       maxFrames: Int = 1, edit: (inout ProcessingOptions) -> Void = { _ in }) throws -> Renderer.Rendered {
        var configuration = Renderer.Configuration.unhurried
        configuration.maxAnimationFrames = maxFrames
        configuration.preferredFormats = try #require(PreferredFormats(preferred))
        var options = ProcessingOptions()
        options.width = 60
        edit(&options)
        return try Renderer(configuration: configuration).render(source, sourceFormat: sourceFormat, options: options)
    }

    @Test func anOpaqueWebPBecomesJPEGATransparentOnePNG() throws {
        let opaque = try Self.render(TestImages.draw("gradient:red-blue", width: 120, height: 80, format: .webp), .webp)
        #expect(opaque.format == .jpeg)
        #expect(try ImageProbe(opaque.bytes).format == "JPEG")

        let transparent = try Self.render(TestImages.draw("gradient:red-none", width: 120, height: 80, format: .webp), .webp)
        #expect(transparent.format == .png)
        #expect(try ImageProbe(transparent.bytes).alpha(x: 30, y: 39) < 0.9)
    }

    /// imgproxy: transparency is expected from padding or extend too, unless a background flattens it.
    @Test func paddingAsksForAlphaUnlessABackgroundIsGiven() throws {
        let source = TestImages.draw("gradient:red-blue", width: 120, height: 80, format: .webp)
        #expect(try Self.render(source, .webp) { $0.padding = Padding(top: 5, right: 5, bottom: 5, left: 5) }.format == .png)
        #expect(try Self.render(source, .webp) {
            $0.padding = Padding(top: 5, right: 5, bottom: 5, left: 5)
            $0.background = .white
        }.format == .jpeg)
    }

    @Test func aPreferredSourceFormatIsKept() throws {
        let png = try Self.render(TestImages.draw("gradient:red-blue", width: 120, height: 80, format: .png), .png)
        #expect(png.format == .png)
        let webp = try Self.render(TestImages.draw("gradient:red-blue", width: 120, height: 80, format: .webp), .webp,
                                   preferred: [.webp, .jpeg])
        #expect(webp.format == .webp)
    }

    @Test func anAnimatedWebPStaysAnimatedAsGIFWhenAnimationsAreAllowed() throws {
        let source = GoldenImages.animation(colors: ["red", "lime", "blue"], width: 120, height: 80, delay: 25, format: .webp)

        let animated = try Self.render(source, .webp, maxFrames: 10)
        #expect(animated.format == .gif)
        #expect(GoldenImages.frames(of: animated.bytes).count == 3)

        // with one frame allowed the result is a still picture (the format as its alpha picks it)
        let first = try Self.render(source, .webp, maxFrames: 1)
        #expect(first.format != .gif && GoldenImages.frames(of: first.bytes).count == 1)
        // with no preferred format that animates, the first frame in the first one
        let still = try Self.render(source, .webp, preferred: [.png, .jpeg], maxFrames: 10)
        #expect(still.format == .png)
        #expect(GoldenImages.frames(of: still.bytes).count == 1)
    }
}
