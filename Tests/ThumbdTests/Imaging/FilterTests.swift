import CMagickWand
import Testing
import ThumbdTestSupport
@testable import ThumbImaging
@testable import ThumbRequest

/// `blur` and `sharpen` cost a bounded amount per pixel, yet look as ImageMagick's own 2D
/// Gaussian blur and sharpen did; a tiled watermark is one layer, never specks.
@Suite(.computing, .timeLimit(.minutes(5)))
struct FilterTests {
    /// A checkerboard of 15-pixel squares over a gradient: edges everywhere, in every channel.
    static let source: [UInt8] = GoldenImages.render(width: 240, height: 180, background: "gradient:orange-navy", format: .png) { wand in
        guard let board = NewMagickWand() else { return }
        defer { DestroyMagickWand(board) }
        MagickSetSize(board, 240, 180)
        MagickReadImage(board, "pattern:checkerboard")
        MagickCompositeImage(wand, board, MultiplyCompositeOp, 0, 0)
    }

    static func rendered(_ options: String) throws -> [UInt8] {
        let request = try RequestPathParser(verifier: .insecure, baseURL: nil,
            policy: Renderer.encodePolicy).parse(rawPath: "/insecure/\(options)/plain/http://h/a@png")
        return try Renderer(configuration: .unhurried).render(source, sourceFormat: .png, options: request.options).bytes
    }

    /// `source` through one MagickWand call.
    static func reference(_ filter: (OpaquePointer) -> MagickBooleanType) throws -> [UInt8] {
        let wand = try #require(NewMagickWand())
        defer { DestroyMagickWand(wand) }
        _ = source.withUnsafeBytes { MagickReadImageBlob(wand, $0.baseAddress, $0.count) }
        try #require(filter(wand) == MagickTrue)
        var length = 0
        let blob = try #require(MagickGetImageBlob(wand, &length))
        defer { MagickRelinquishMemory(blob) }
        return Array(UnsafeBufferPointer(start: blob, count: length))
    }

    /// Peak signal to noise ratio of two images, in dB (above 40: no difference an eye sees).
    static func psnr(_ a: [UInt8], _ b: [UInt8]) throws -> Double {
        let (first, second) = (try #require(NewMagickWand()), try #require(NewMagickWand()))
        defer { DestroyMagickWand(first); DestroyMagickWand(second) }
        _ = a.withUnsafeBytes { MagickReadImageBlob(first, $0.baseAddress, $0.count) }
        _ = b.withUnsafeBytes { MagickReadImageBlob(second, $0.baseAddress, $0.count) }
        var distortion = 0.0
        let difference = MagickCompareImages(first, second, PeakSignalToNoiseRatioMetric, &distortion)
        if let difference { DestroyMagickWand(difference) }
        return distortion
    }

    @Test(arguments: [0.5, 1, 2, 4])
    func sharpenLooksAsImageMagicksSharpen(sigma: Double) throws {
        // Given the render's sharpen and ImageMagick's, and the picture unsharpened
        let ours = try Self.rendered("sh:\(sigma)")
        let theirs = try Self.reference { MagickSharpenImage($0, 0, sigma) }

        let plain = try Self.rendered("w:240")

        // Then they differ by nothing an eye sees, and ours changes the picture as much as
        // ImageMagick's did (within 1 dB; at sigma 0.5 slightly more, its blur kernel integrating
        // each pixel's span: never less sharp)
        #expect(try Self.psnr(ours, theirs) > 45, "sigma \(sigma)")
        let (change, theirChange) = (try Self.psnr(ours, plain), try Self.psnr(theirs, plain))
        #expect(change < theirChange + 1 && change > theirChange - (sigma < 1 ? 4 : 1),
                "sigma \(sigma): \(change) dB from unsharpened, ImageMagick's \(theirChange) dB")
    }

    @Test(arguments: [2.0, 40])
    func sharpenLeavesTransparencyAsItWas(sigma: Double) throws {
        // Given a blue disc on a transparent 100 x 100 picture
        let disc = GoldenImages.disc(width: 100, height: 100, color: "blue", format: .png)
        let request = try RequestPathParser(verifier: .insecure, baseURL: nil,
            policy: Renderer.encodePolicy).parse(rawPath: "/insecure/sh:\(sigma)/plain/http://h/a@png")

        // When it is sharpened
        let sharpened = try ImageProbe(try Renderer(configuration: .unhurried).render(disc, sourceFormat: .png, options: request.options).bytes)

        // Then the corner is still transparent and the disc opaque and blue
        #expect(sharpened.alpha(x: 2, y: 2) == 0)
        #expect(sharpened.alpha(x: 50, y: 50) == 1)
        #expect(RenderGoldenTests.looks(sharpened, at: (50, 50), like: "blue", tolerance: 10))
    }

    @Test(arguments: [1, 2, 8, 20, 60])
    func blurLooksAsAGaussianBlur(sigma: Double) throws {
        let ours = try Self.rendered("bl:\(sigma)")
        // The 2D kernel where that takes no long; the same Gaussian by separable passes above
        let theirs = try Self.reference { sigma <= 8 ? MagickGaussianBlurImage($0, 0, sigma) : MagickBlurImage($0, 0, sigma) }

        #expect(try Self.psnr(ours, theirs) > 40, "sigma \(sigma)")
    }

    @Test func aSigmaIsCappedAtTheLongerSide() {
        #expect(Filters.sigma(2, longerSide: 300) == 2)
        #expect(Filters.sigma(16384, longerSide: 300) == 300)
        #expect(Filters.sigma(100, longerSide: 80) == 80)
    }

    @Test func dprDoesNotScaleTheFilters() throws {
        // imgproxy processing/apply_filters.go: blur, sharpen and pixelate as the URL gives them.
        // At dpr 2 the result is twice the size; its blur is the same sigma, not twice it.
        let atTwo = try Self.rendered("bl:4/dpr:2/el:1")
        let reference = try Self.rendered("bl:4/el:1/w:480")
        #expect(try Self.psnr(atTwo, reference) > 40)
        #expect(try Self.psnr(atTwo, Self.rendered("bl:8/el:1/w:480")) < 40)
    }

    @Test func aTiledMarkIsScaledToAShareOfTheWidthButNeverBelowEightPixels() {
        #expect(DrawWatermark.scaledSize(of: (40, 20), resultWidth: 400, scale: 0.5, tiled: true) == (200, 100))
        #expect(DrawWatermark.scaledSize(of: (40, 20), resultWidth: 400, scale: 0.0001, tiled: false) == (1, 1))
        #expect(DrawWatermark.scaledSize(of: (40, 20), resultWidth: 400, scale: 0.0001, tiled: true) == (16, 8))
        #expect(DrawWatermark.scaledSize(of: (20, 40), resultWidth: 400, scale: 0.0001, tiled: true) == (8, 16))
        #expect(DrawWatermark.scaledSize(of: (40, 20), resultWidth: 400, scale: 16384, tiled: false) == (400, 200))
    }
}
