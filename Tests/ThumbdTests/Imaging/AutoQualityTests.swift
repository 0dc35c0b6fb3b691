import CMagickWand
import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbImaging
@testable import ThumbRequest
import ThumbRuntime

/// The DSSIM autoquality scores with, and the search on real thumbnails: what it picks meets its
/// target, and a simple picture gets a lower quality than a detailed photo.
@Suite(.computing, .timeLimit(.minutes(5)))
struct AutoQualityTests {
    static let photos = TestPhotos.directory
    static let detailed = "Kleiber_by_Lukas_Baubkus.jpg"
    static let havePhoto = FileManager.default.fileExists(atPath: photos + "/" + detailed)

    /// A 300x200 thumbnail of `source`, as the render leaves it before encoding.
    static func thumbnail(_ source: [UInt8]) throws -> MagickImage {
        TestImages.startImageMagick()
        let image = MagickImage()
        try image.read(source)
        try image.thumbnail(width: 300, height: 200)
        return image
    }

    static func photo() throws -> MagickImage {
        try thumbnail([UInt8](try Data(contentsOf: URL(fileURLWithPath: photos + "/" + detailed))))
    }

    /// Soft gradients: little that a lower quality loses.
    static func flat() throws -> MagickImage {
        try thumbnail(TestImages.draw("gradient:#8090a0-#a0b0c0", width: 300, height: 200, format: .png))
    }

    /// Noise over a gradient: detail that costs bytes at every quality.
    static func noisy(width: Int, height: Int) -> [UInt8] {
        GoldenImages.render(width: width, height: height, background: "gradient:red-blue", format: .png) { wand in
            MagickAddNoiseImage(wand, GaussianNoise)
        }
    }

    /// As the render encodes: JPEG chroma by the default `subsample_below`.
    static func encode(_ image: MagickImage, _ format: ImageFormat, quality: Int) throws -> [UInt8] {
        let defaults = ProcessingOptions()
        return try image.encode(as: format, quality: quality, fullChroma: defaults.keepsFullChroma(format, atQuality: quality),
                                options: defaults)
    }

    static func search(_ image: MagickImage, _ format: ImageFormat, _ settings: AutoQuality) throws -> AutoQualitySearch.Result {
        var options = ProcessingOptions()
        options.autoQuality = settings
        return try image.encodeSearchingQuality(as: format, options: options, deadline: RenderDeadline(seconds: 60))
    }

    static func score(_ image: MagickImage, _ format: ImageFormat, quality: Int) throws -> Double {
        let decoded = try MagickImage.decodedPixels(try encode(image, format, quality: quality), format: format)
        return DSSIM(reference: try image.rgbPixels()).score(decoded)
    }

    @Test func identicalImagesScoreZero() throws {
        let pixels = try Self.flat().rgbPixels()

        #expect(DSSIM(reference: pixels).score(pixels) < 1e-6)
    }

    @Test func moreNoiseScoresHigher() throws {
        // Given a picture and two copies, one with a little noise and one with more
        let image = try Self.thumbnail(Self.noisy(width: 300, height: 200))
        let reference = try image.rgbPixels()
        var light = reference.rgb, heavy = reference.rgb
        var generator = SystemRandomNumberGenerator()
        for index in light.indices {
            let noise = Int.random(in: -4...4, using: &generator)
            light[index] = UInt8(clamping: Int(light[index]) + noise)
            heavy[index] = UInt8(clamping: Int(heavy[index]) + 5 * noise)
        }

        // When both are scored, then the more degraded copy is further
        let dssim = DSSIM(reference: reference)
        let lightScore = dssim.score(PixelBuffer(width: reference.width, height: reference.height, rgb: light))
        let heavyScore = dssim.score(PixelBuffer(width: reference.width, height: reference.height, rgb: heavy))
        #expect(lightScore > 0.0001)
        #expect(heavyScore > 2 * lightScore, "\(lightScore) \(heavyScore)")
    }

    @Test(.enabled(if: havePhoto, "no photos in THUMBD_TEST_PHOTOS; deploy/test fetches them"),
          arguments: [ImageFormat.jpeg, .webp, .avif])
    func dssimFallsAsTheQualityRises(format: ImageFormat) throws {
        let image = try Self.photo()

        let scores = try [20, 40, 60, 75, 90].map { quality in try Self.score(image, format, quality: quality) }

        #expect(zip(scores, scores.dropFirst()).allSatisfy { $0 > $1 }, "\(scores)")
        #expect(scores.last! > 0)
    }

    @Test(.enabled(if: havePhoto, "no photos in THUMBD_TEST_PHOTOS; deploy/test fetches them"),
          arguments: [ImageFormat.jpeg, .webp, .avif])
    func dssimGivesASimplePictureALowerQualityThanADetailedPhotoAndMeetsItsTarget(format: ImageFormat) throws {
        // Given autoquality over the whole range at a target between what the two need
        var settings = AutoQuality()
        (settings.method, settings.target, settings.allowedError) = (.dssim, 0.003, 0.0005)
        (settings.minQuality, settings.maxQuality, settings.formatMinQuality, settings.formatMaxQuality) = (30, 95, [:], [:])

        // When each picture is searched
        let photo = try Self.photo(), flat = try Self.flat()
        let detailed = try Self.search(photo, format, settings)
        let simple = try Self.search(flat, format, settings)

        // Then the simple one gets less, and each meets the target where its maximum can
        let (low, high) = (simple.chosen.quality, detailed.chosen.quality)
        #expect(low < high, "flat \(low), photo \(high)")
        for (image, quality) in [(photo, high), (flat, low)] where quality < 95 {
            #expect(try Self.score(image, format, quality: quality) <= 0.003 + 0.0005, "q\(quality)")
        }
        #expect(detailed.chosen.encodes <= AutoQualitySearch.maxEncodes)
    }

    @Test(.enabled(if: havePhoto, "no photos in THUMBD_TEST_PHOTOS; deploy/test fetches them"),
          arguments: [ImageFormat.jpeg, .webp, .avif])
    func sizeTakesTheLargestQualityThatFits(format: ImageFormat) throws {
        // Given a byte target between what q70 and q80 make of a photo
        let image = try Self.photo()
        let low = try Self.encode(image, format, quality: 70).count, high = try Self.encode(image, format, quality: 80).count
        var settings = AutoQuality()
        (settings.method, settings.target, settings.formatMinQuality, settings.formatMaxQuality) = (.size, Double(low + high) / 2, [:], [:])

        // When the search runs
        let found = try Self.search(image, format, settings)

        // Then the result fits, and one quality more would not (70...80 is searched exactly)
        #expect(Double(found.bytes.count) <= settings.target)
        #expect((70..<80).contains(found.chosen.quality))
        #expect(Double(try Self.encode(image, format, quality: found.chosen.quality + 1).count) > settings.target)
    }

    @Test func whatIsUnderTransparentPixelsDoesNotCount() throws {
        // Given a disc on transparency, whose hidden colours a WebP encoder does not keep
        let disc = try Self.thumbnail(GoldenImages.disc(width: 300, height: 200, color: "seagreen", format: .png))
        var settings = AutoQuality()
        (settings.method, settings.target, settings.minQuality, settings.maxQuality) = (.dssim, 0.002, 40, 95)

        // When its WebP quality is searched, then the target is met below the maximum (compared
        // as they are, the hidden colours alone kept it out of reach at every quality)
        let found = try Self.search(disc, .webp, settings)
        #expect(found.chosen.quality < 95)
        #expect((found.chosen.dssim ?? 1) <= 0.002, "q\(found.chosen.quality), DSSIM \(found.chosen.dssim ?? -1)")
    }

    @Test func onlyLossyStillsHaveTheirQualitySearched() throws {
        // Given a PNG asked for with autoquality: it is encoded as without
        let source = Self.noisy(width: 300, height: 200)
        var options = ProcessingOptions()
        options.format = .png
        let plain = try Renderer(configuration: .unhurried).render(source, sourceFormat: .png, options: options)
        options.autoQuality.method = .size
        options.autoQuality.target = 10

        let searched = try Renderer(configuration: .unhurried).render(source, sourceFormat: .png, options: options)

        #expect(searched.bytes == plain.bytes)
    }

    @Test func maxBytesStillAppliesAfterTheSearch() throws {
        // Given a dssim target that wants q95 and a byte limit below what q95 makes
        let source = Self.noisy(width: 600, height: 400)
        var options = ProcessingOptions()
        options.format = .jpeg
        options.autoQuality.method = .dssim
        (options.autoQuality.target, options.autoQuality.minQuality, options.autoQuality.maxQuality) = (0.00001, 90, 95)
        let unlimited = try Renderer(configuration: .unhurried).render(source, sourceFormat: .png, options: options)
        options.maxBytes = unlimited.bytes.count / 2

        let limited = try Renderer(configuration: .unhurried).render(source, sourceFormat: .png, options: options)

        #expect(limited.bytes.count <= options.maxBytes)
    }

    /// The detailed photo as a 300x200 JPEG fill with `aq:dssim:0.02:40:95`, spending at slope 40.
    static func renderedBySlope(subsampleBelow: Int, maxBytes: Int = 0) throws -> Renderer.Rendered {
        let path = "/insecure/rs:fill:300:200/aq:dssim:0.02:40:95/ssb:\(subsampleBelow)/mb:\(maxBytes)/plain/http://h/a@jpg"
        var options = try RequestPathParser(verifier: .insecure, baseURL: nil,
                                            policy: Renderer.encodePolicy).parse(rawPath: path).options
        options.autoQuality.dssimSlope = 40
        TestImages.startImageMagick()
        let source = [UInt8](try Data(contentsOf: URL(fileURLWithPath: photos + "/" + detailed)))
        return try Renderer(configuration: .unhurried).render(source, sourceFormat: .jpeg, options: options)
    }

    @Test(.enabled(if: havePhoto, "no photos in THUMBD_TEST_PHOTOS; deploy/test fetches them"),
          arguments: [(90, true), (0, true), (101, false)])
    func withASlopeAJPEGsChromaIsChosenUnlessSubsampleBelowFixesIt(subsampleBelow: Int, fullChroma: Bool) throws {
        let rendered = try Self.renderedBySlope(subsampleBelow: subsampleBelow)
        let chosen = try #require(rendered.autoQuality)

        // Then the file has the chroma the search reports: with the rule (ssb:90), 4:4:4 below q90,
        // which the rule would not give; 0 and 101 keep theirs
        #expect(chosen.fullChroma == fullChroma)
        #expect(try ChromaTests.sampling(rendered.bytes) == [fullChroma ? "1x1" : "2x2", "1x1", "1x1"])
        if subsampleBelow == 90 { #expect(chosen.quality < 90) }
        #expect(chosen.encodes <= (subsampleBelow == 90 ? 2 : 1) * (AutoQualitySearch.maxEncodes + AutoQualitySearch.maxSlopeSteps))
    }

    @Test(.enabled(if: havePhoto, "no photos in THUMBD_TEST_PHOTOS; deploy/test fetches them"))
    func maxBytesKeepsTheChromaTheSlopeChose() throws {
        // Given the chroma chosen by slope (4:4:4 for this photo) and a byte limit below its file
        let unlimited = try Self.renderedBySlope(subsampleBelow: 90)
        let limit = unlimited.bytes.count * 3 / 4

        // When max_bytes lowers the quality, then the file fits and keeps 4:4:4
        let limited = try Self.renderedBySlope(subsampleBelow: 90, maxBytes: limit)
        #expect(limited.bytes.count <= limit)
        #expect(try ChromaTests.sampling(limited.bytes) == ["1x1", "1x1", "1x1"])
    }

    /// JPEG with imgproxy's default `aq:dssim` and thumbd's other defaults.
    static func dssimOptions() -> ProcessingOptions {
        var options = ProcessingOptions()
        options.format = .jpeg
        options.autoQuality.method = .dssim
        return options
    }

    @Test func aboveTheDefaultMaxResolutionAResultIsEncodedAtThePlainQuality() throws {
        // Given a soft gradient, which dssim writes below the plain quality, at 2600x2000: 5.2 MP,
        // over the default AUTOQUALITY_MAX_RESOLUTION
        let source = TestImages.draw("gradient:#8090a0-#a0b0c0", width: 2600, height: 2000, format: .png)
        var plain = Self.dssimOptions()
        plain.autoQuality.method = .none
        #expect(AutoQuality().maxResolution > 0 && AutoQuality().maxResolution < 5.2)

        // When it is rendered with autoquality and without
        let searched = try Renderer(configuration: .unhurried).render(source, sourceFormat: .png, options: Self.dssimOptions())
        let fixed = try Renderer(configuration: .unhurried).render(source, sourceFormat: .png, options: plain)

        // Then autoquality was skipped: the very bytes of the plain quality
        #expect(searched.autoQuality == nil)
        #expect(searched.bytes == fixed.bytes)
    }

    @Test(arguments: [ImageFormat.jpeg, .webp, .avif])
    func aResultLargerThanTheScoringResolutionIsScoredOnASampleWithinIt(format: ImageFormat) throws {
        // Given a noisy 1200x800 result (0.96 MP) and a scoring resolution of a quarter megapixel
        let source = Self.noisy(width: 1200, height: 800)
        var options = Self.dssimOptions()
        options.format = format
        options.autoQuality.scoreResolution = 0.25

        // When its quality is searched
        let rendered = try Renderer(configuration: .unhurried).render(source, sourceFormat: .png, options: options)

        // Then each DSSIM compared at most that, most of it used
        let scored = try #require(rendered.autoQuality?.scoredPixels)
        #expect(scored <= 250_000 && scored > 200_000, "\(scored) pixels")
        // while a result within it is compared whole
        let small = try Self.search(try Self.flat(), format, options.autoQuality)
        #expect(small.chosen.scoredPixels == 300 * 200)
    }

    @Test func aDeadlinePastEndsTheSearchWithTheRendersTimeout() throws {
        // Given a render's deadline already past and a large result, its wand not watched by the
        // deadline (so only the search's own checks can stop it)
        let deadline = RenderDeadline(seconds: 0)
        TestImages.startImageMagick()
        let image = MagickImage()
        try image.read(Self.noisy(width: 2400, height: 1600))

        // When its quality is to be searched, then the render's timeout error ends it
        do throws(ImagingFailure) {
            let encoded = try Renderer.encode(image, as: .jpeg, options: Self.dssimOptions(), deadline: deadline)
            Issue.record("encoded past the deadline: \(encoded.bytes.count) bytes, \(String(describing: encoded.autoQuality))")
        } catch {
            #expect(error == deadline.error)
        }
    }
}
