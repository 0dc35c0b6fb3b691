import CMagickWand
import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbImaging
@testable import ThumbRequest

/// Real photographs from the project's corpus (deploy/test fetches them into THUMBD_TEST_PHOTOS):
/// the thumbnail has the planned size, and decoding at a reduced size (a JPEG's DC scans or
/// libjpeg's DCT scaling, libwebp's rescaler, a PNG's rows averaged) gives the same picture as a
/// full decode, within a tolerance, as sharp.
@Suite(.computing, .timeLimit(.minutes(5)))
struct PhotoTests {
    static let directory = TestPhotos.directory
    static let names = ["Bridge_by_Sander_Klootwijk.jpg", "Kleiber_by_Lukas_Baubkus.jpg", "seeding_by_Clements_Engelhardt.jpg",
                        "calla.png", "wood-d.webp", "pixels-l.webp"]
    static let shrinkable = available.filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".webp") || $0.hasSuffix(".png") }
    static let available = names.filter { FileManager.default.fileExists(atPath: directory + "/" + $0) }
    /// Every photo there, not only those named above.
    static let everyPhoto = (FileManager.default.subpaths(atPath: directory) ?? []).sorted()

    static func render(_ source: [UInt8], shrinkOnLoad: Bool, _ options: ProcessingOptions) throws -> Renderer.Rendered {
        TestImages.startImageMagick()  // thumbd's policy and limits, before anything else touches ImageMagick
        var configuration = Renderer.Configuration.unhurried
        configuration.shrinkOnLoad = shrinkOnLoad
        return try Renderer(configuration: configuration)
            .render(source, sourceFormat: try #require(ContentSniffer.format(of: source)), options: options)
    }

    @Test(.enabled(if: !available.isEmpty, "no photos in THUMBD_TEST_PHOTOS; deploy/test fetches them"),
          arguments: available)
    func photosBecomeThumbnailsOfThePlannedSize(name: String) throws {
        TestImages.startImageMagick()
        let source = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.directory + "/" + name)))
        let header = try Renderer.header(of: source, format: try #require(ContentSniffer.format(of: source)),
                                         maxPixels: 50_000_000, maxFrames: 1)
        var options = ProcessingOptions()
        options.width = 300
        options.height = 200
        options.format = .webp
        let plan = ResizePlan(sourceWidth: header.width, sourceHeight: header.height, options: options)

        let thumbnail = try ImageProbe(try Self.render(source, shrinkOnLoad: true, options).bytes)

        #expect(thumbnail.format == "WEBP")
        #expect((thumbnail.width, thumbnail.height) == (plan.outputWidth, plan.outputHeight))
        #expect(thumbnail.width == 300 || thumbnail.height == 200)
    }

    @Test(.enabled(if: !everyPhoto.isEmpty, "no photos in THUMBD_TEST_PHOTOS; deploy/test fetches them"),
          arguments: everyPhoto)
    func everyPhotoRendersAndAProgressiveJPEGFromItsDCScans(name: String) throws {
        // Given a real photo
        let source = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.directory + "/" + name)))
        let format = try #require(ContentSniffer.format(of: source))
        var options = ProcessingOptions()
        options.width = 300
        options.height = 200
        options.format = .webp

        // When it is rendered, then no decoder complaint stops it
        _ = try Self.render(source, shrinkOnLoad: true, options)

        // and a progressive JPEG decodes at 1/8 from its DC scans alone: one that did not would go
        // to libjpeg, at twice the cost or more
        guard format == .jpeg else { return }
        let header = try Renderer.header(of: source, format: .jpeg, maxPixels: 50_000_000, maxFrames: 1)
        let pinged = try #require(header.pinged)
        let progressive = MagickGetImageInterlaceScheme(pinged.wand) == JPEGInterlace
        let image = MagickImage()
        #expect(image.readProgressiveJPEGAtEighth(source, header: pinged, hint: (header.width / 8, header.height / 8)) == progressive)
    }

    /// Fit scales the whole photo; fill cuts a window, which libwebp cuts while it decodes.
    @Test(.enabled(if: !shrinkable.isEmpty, "no JPEG, WebP or PNG photos in THUMBD_TEST_PHOTOS"),
          arguments: shrinkable, [ResizingType.fit, .fill])
    func shrinkOnLoadLooksLikeAFullDecode(name: String, type: ResizingType) throws {
        let source = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.directory + "/" + name)))
        var options = ProcessingOptions()
        options.resizingType = type
        options.width = 300
        options.height = 200
        options.gravity = Gravity(anchor: .southEast)
        options.format = .png

        let shrunk = try ImageProbe(try Self.render(source, shrinkOnLoad: true, options).bytes)
        let full = try ImageProbe(try Self.render(source, shrinkOnLoad: false, options).bytes)

        #expect((shrunk.width, shrunk.height) == (full.width, full.height))
        var difference = 0, samples = 0
        for y in stride(from: 2, to: full.height - 2, by: 7) {
            for x in stride(from: 2, to: full.width - 2, by: 7) {
                let a = shrunk.color(x: x, y: y), b = full.color(x: x, y: y)
                difference += abs(a.red - b.red) + abs(a.green - b.green) + abs(a.blue - b.blue)
                samples += 3
            }
        }
        #expect(Double(difference) / Double(samples) < 6, "mean difference per channel")
        // pixels-l.webp's south-east window keeps 0.89 of a full decode's edges, cut while decoding
        // or not (3.36 and 3.35 against 3.77): libwebp's rescaler averages at twice the size
        let kept = type == .fill ? 0.85 : 0.9
        #expect(Self.sharpness(shrunk) >= kept * Self.sharpness(full), "edges as strong as a full decode's")
    }

    /// Mean difference between horizontal neighbours' green: what blur takes away.
    static func sharpness(_ image: ImageProbe) -> Double {
        var total = 0, count = 0
        for y in stride(from: 0, to: image.height, by: 3) {
            for x in 1..<image.width {
                total += abs(image.color(x: x, y: y).green - image.color(x: x - 1, y: y).green)
                count += 1
            }
        }
        return Double(total) / Double(count)
    }
}
