import CMagickWand
import Testing
import ThumbdTestSupport
@testable import ThumbImaging
@testable import ThumbRequest
@testable import ThumbRuntime

/// The render against images with known content: sizes, orientation, and the colour of known
/// regions within a tolerance (never bytes, so ImageMagick upgrades do not break them).
@Suite(.computing, .timeLimit(.minutes(5)))
struct RenderGoldenTests {
    static let rgb: [String: (Int, Int, Int)] = [
        "red": (255, 0, 0), "lime": (0, 255, 0), "blue": (0, 0, 255), "yellow": (255, 255, 0),
        "white": (255, 255, 255), "magenta": (255, 0, 255),
    ]

    /// Renders `source` with the options of an imgproxy URL path (security options allowed).
    static func render(_ source: [UInt8], _ options: String, ext: String = "png") throws -> ImageProbe {
        let parser = RequestPathParser(verifier: SignatureVerifier.insecure, baseURL: nil,
                                       options: OptionParser(allowSecurityOptions: true), policy: Renderer.encodePolicy)
        let request = try parser.parse(rawPath: "/insecure/\(options)/plain/http://h/a@\(ext)")
        let format = try #require(ContentSniffer.format(of: source))
        let rendered = try Renderer(configuration: .unhurried).render(source, sourceFormat: format, options: request.options)
        return try ImageProbe(rendered.bytes)
    }

    static func looks(_ probe: ImageProbe, at point: (Int, Int), like name: String, tolerance: Int = 60) -> Bool {
        let color = probe.color(x: point.0, y: point.1)
        let expected = rgb[name]!
        return abs(color.red - expected.0) <= tolerance && abs(color.green - expected.1) <= tolerance
            && abs(color.blue - expected.2) <= tolerance
    }

    // EXIF orientation → (upright size, colour at top-left, colour at top-right) for a 200x100
    // source whose quadrants are red, lime / blue, yellow.
    @Test(arguments: [
        (UInt8(1), 200, 100, "red", "lime"),
        (2, 200, 100, "lime", "red"),
        (3, 200, 100, "yellow", "blue"),
        (4, 200, 100, "blue", "yellow"),
        (5, 100, 200, "red", "blue"),
        (6, 100, 200, "blue", "red"),
        (7, 100, 200, "yellow", "lime"),
        (8, 100, 200, "lime", "yellow"),
    ])
    func everyExifOrientationComesOutUpright(orientation: UInt8, width: Int, height: Int, topLeft: String, topRight: String) throws {
        let source = GoldenImages.withOrientation(GoldenImages.quadrants(width: 200, height: 100, format: .jpeg), orientation)

        let image = try Self.render(source, "rs:fit:0:0")

        #expect((image.width, image.height) == (width, height))
        #expect(Self.looks(image, at: (width / 4, height / 8), like: topLeft), "orientation \(orientation) top-left")
        #expect(Self.looks(image, at: (3 * width / 4, height / 8), like: topRight), "orientation \(orientation) top-right")
    }

    @Test func autoRotateOffKeepsTheStoredOrientation() throws {
        let source = GoldenImages.withOrientation(GoldenImages.quadrants(width: 200, height: 100, format: .jpeg), 6)
        let image = try Self.render(source, "ar:0")
        #expect((image.width, image.height) == (200, 100))
        #expect(Self.looks(image, at: (50, 25), like: "red"))
    }

    @Test func orientationTagIsGoneAfterwards() throws {
        let source = GoldenImages.withOrientation(GoldenImages.quadrants(width: 200, height: 100, format: .jpeg), 6)
        let image = try Self.render(source, "w:50", ext: "jpg")
        #expect(image.property("exif:Orientation") == nil)
    }

    @Test func cmykJPEGComesOutInItsColoursNotInverted() throws {
        let image = try Self.render(GoldenImages.cmykJPEG(color: "red", width: 120, height: 80), "w:60", ext: "jpg")
        #expect(image.colorspace == sRGBColorspace)
        #expect(Self.looks(image, at: (30, 20), like: "red", tolerance: 70))
    }

    @Test func anEmbeddedProfileIsConvertedToSRGB() throws {
        // (128, 96, 64) in linear light is (188, 168, 137) in sRGB; unconverted it would stay put
        let image = try Self.render(GoldenImages.linearTagged(red: 128, green: 96, blue: 64, width: 64, height: 64), "w:32")
        let color = image.color(x: 16, y: 16)
        #expect(abs(color.red - 188) <= 8 && abs(color.green - 168) <= 8 && abs(color.blue - 137) <= 8, "\(color)")
    }

    @Test func transparencyIsFlattenedOntoWhiteForJPEGAndOntoTheBackgroundWhenAsked() throws {
        let disc = GoldenImages.disc(width: 100, height: 100, color: "blue", format: .png)

        let jpeg = try Self.render(disc, "w:50", ext: "jpg")
        #expect(Self.looks(jpeg, at: (1, 1), like: "white", tolerance: 10))
        #expect(Self.looks(jpeg, at: (25, 25), like: "blue"))

        let magenta = try Self.render(disc, "w:50/bg:255:0:255", ext: "jpg")
        #expect(Self.looks(magenta, at: (1, 1), like: "magenta", tolerance: 20))

        let png = try Self.render(disc, "w:50", ext: "png")
        #expect(png.alpha(x: 1, y: 1) < 0.05)
        #expect(png.alpha(x: 25, y: 25) > 0.95)
    }

    @Test(arguments: [
        ("rs:fit:100:100", 100, 50),
        ("rs:fill:100:100", 100, 100),
        ("rs:force:100:100", 100, 100),
        ("rs:fill-down:300:300", 200, 200),
        ("rs:auto:100:50", 100, 50),
        ("rs:auto:50:100", 50, 25),
        // imgproxy cuts to an asked width or height after the minimum sizes (its docs warn of it)
        ("rs:fit:100:100/mw:150", 100, 75),
        ("rs:fit:100:100/mh:80", 100, 80),
        ("rs:fit:100:100/dpr:2", 200, 100),
        ("rs:fit:100:100/z:0.5", 50, 25),
        ("rs:fit:800:800", 400, 200),
        ("rs:fit:800:800/el:1", 800, 400),
        ("rs:fit:100:100/ex:1", 100, 100),
        ("rs:fit:100:100/exar:1", 100, 100),
        ("rs:fit:0:0/exar:1:no/w:300/h:100", 300, 100),
        ("c:200:200/rs:fit:100:100", 100, 100),
        ("c:0.5:0.5", 200, 100),
        ("rs:fit:100:100/pd:10", 120, 70),
        ("rs:fit:100:100/pd:10:20", 140, 70),
        ("rot:90", 200, 400),
        ("rot:180/fl:1:1", 400, 200),
        // imgproxy processing/extend_test.go TestExtend: dpr 2 would enlarge, so the canvas stays 500
        ("w:500/h:500/ex:1:no::5/dpr:2", 500, 500),
        // imgproxy processing/crop_test.go TestCrop: the dpr halves the cut
        ("c:50:50:ce:10:10/dpr:0.5", 25, 25),
        // imgproxy processing/padding_test.go TestPadding: padding times the dpr, with the image
        ("dpr:2/pd:20:30:40:10/el:1", 880, 520),
        // imgproxy processing/prepare.go calcScale: without enlarge the dpr enlarges nothing, an
        // extended canvas included; minimum sizes come after that cap; force keeps a 0 side
        ("rs:fit:400:400/dpr:2/ex:1", 400, 400),
        ("dpr:2/pd:10", 420, 220),
        ("rs:fit:800:800/mw:600", 600, 300),
        ("w:100/mw:150", 100, 75),
        ("rs:force:100:0", 100, 200),
    ])
    func geometryMatchesImgproxy(options: String, width: Int, height: Int) throws {
        let image = try Self.render(GoldenImages.quadrants(width: 400, height: 200, format: .png), options)
        #expect((image.width, image.height) == (width, height), "\(options)")
    }

    @Test(arguments: [
        ("rot:90", "blue"),                    // the bottom-left quarter turns to the top-left
        ("rot:270", "lime"),
        ("fl:1:0", "lime"),                    // mirrored left to right
        ("fl:0:1", "blue"),                    // mirrored top to bottom
        ("c:200:200:ea", "lime"),              // the right half kept
        ("rs:fill:100:100/g:fp:1:0", "lime"),  // the window on the focus point at the right
        ("rs:fill:100:100/g:we", "red"),
        ("rs:fill:100:100/g:ea", "lime"),
    ])
    func transformsMoveTheRightQuarterToTheTopLeft(options: String, topLeft: String) throws {
        let image = try Self.render(GoldenImages.quadrants(width: 400, height: 200, format: .png), options)
        #expect(Self.looks(image, at: (image.width / 8, image.height / 8), like: topLeft, tolerance: 20), "\(options)")
    }

    @Test func extendAndPaddingFillWithTheBackground() throws {
        let source = GoldenImages.quadrants(width: 400, height: 200, format: .png)
        let extended = try Self.render(source, "rs:fit:100:100/ex:1/bg:255:0:255")
        #expect(Self.looks(extended, at: (50, 5), like: "magenta", tolerance: 20))
        #expect(Self.looks(extended, at: (10, 40), like: "red", tolerance: 20))
        let padded = try Self.render(source, "rs:fit:100:100/pd:10/bg:255:0:255", ext: "jpg")
        #expect(Self.looks(padded, at: (2, 2), like: "magenta", tolerance: 40))
        #expect(Self.looks(padded, at: (20, 20), like: "red", tolerance: 40))
    }

    @Test func trimCutsTheFrame() throws {
        let image = try Self.render(GoldenImages.framed(width: 200, height: 200, border: 20), "t:10")
        #expect((image.width, image.height) == (160, 160))
        #expect(Self.looks(image, at: (0, 0), like: "red", tolerance: 20))
    }

    @Test func pixelateMakesBlocks() throws {
        let source = TestImages.draw("gradient:red-blue", width: 200, height: 200, format: .png)
        let image = try Self.render(source, "pix:20")
        let a = image.color(x: 0, y: 0), b = image.color(x: 19, y: 19), c = image.color(x: 0, y: 199)
        #expect(a.red == b.red && a.blue == b.blue)
        #expect(a.blue != c.blue)
    }

    @Test func maxBytesLowersTheQualityUntilItFits() throws {
        let source = GoldenImages.render(width: 600, height: 400, background: "gradient:red-blue", format: .jpeg) { wand in
            MagickAddNoiseImage(wand, GaussianNoise)  // detail that costs bytes at high quality
        }
        let full = try Renderer(configuration: .unhurried).render(source, sourceFormat: .jpeg, options: {
            var options = ProcessingOptions(); options.format = .jpeg; options.quality = 95; return options
        }())
        var limited = ProcessingOptions()
        limited.format = .jpeg
        limited.quality = 95
        limited.maxBytes = full.bytes.count / 3
        let small = try Renderer(configuration: .unhurried).render(source, sourceFormat: .jpeg, options: limited)
        #expect(small.bytes.count <= limited.maxBytes)
        #expect(small.bytes.count < full.bytes.count)
    }

    // imgproxy processing/processing_test.go TestResultSizeLimit: the result is scaled down to
    // fit, padding included, not refused
    @Test(arguments: [("mrd:300", 300, 150), ("mrd:300/w:300", 300, 150), ("mrd:200/rs:fit:100:100/pd:100:200:300:400", 200, 129)])
    func maxResultDimensionScalesTheResultDownToFit(options: String, width: Int, height: Int) throws {
        let image = try Self.render(GoldenImages.quadrants(width: 400, height: 200, format: .png), options)
        #expect((image.width, image.height) == (width, height), "\(options)")
    }

    @Test(arguments: [GrayscaleType, PaletteType, TrueColorMatteType])
    func unusualPixelLayoutsRender(type: ImageType) throws {
        let source = GoldenImages.render(width: 120, height: 80, background: "gradient:red-blue", format: .png) { wand in
            MagickSetImageType(wand, type)
            MagickSetImageDepth(wand, 16)
        }
        let image = try Self.render(source, "w:60", ext: "jpg")
        #expect((image.width, image.height) == (60, 40))
    }

    @Test func smartGravityKeepsAnOffCentreSubjectWhereTheCentreCropLosesIt() throws {
        // Given a plain picture with a detailed subject in its right quarter
        let source = GoldenImages.render(width: 800, height: 400, background: "xc:gray60", format: .png) { wand in
            let subject = NewMagickWand()!
            defer { DestroyMagickWand(subject) }
            MagickSetSize(subject, 200, 400)
            MagickReadImage(subject, "pattern:checkerboard")
            MagickCompositeImage(wand, subject, OverCompositeOp, 600, 0)
        }

        // When cropped to a square by content and by the centre
        let smart = try Self.render(source, "rs:fill:200:200/g:sm")
        let centre = try Self.render(source, "rs:fill:200:200/g:ce")

        // Then the smart square shows the subject (the checkerboard's busy pixels), the centre one only grey
        // (the checkerboard's greys are about 50 apart; the background's pixels a few at most)
        func spread(_ image: ImageProbe) -> Int {
            let samples = (0..<200).map { image.color(x: $0, y: 100).red }
            return (samples.max() ?? 0) - (samples.min() ?? 0)
        }
        #expect(spread(smart) > 30)
        #expect(spread(centre) < 10)
    }
}
