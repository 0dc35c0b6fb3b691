import Testing
import ThumbdTestSupport
@testable import ThumbImaging
@testable import ThumbRequest

/// `wm` over a 400 x 200 white source with a 40 x 20 blue watermark configured.
@Suite(.computing, .timeLimit(.minutes(5)))
struct WatermarkTests {
    static let source = GoldenImages.render(width: 400, height: 200, background: "xc:white", format: .png) { _ in }
    static let mark = GoldenImages.render(width: 40, height: 20, background: "xc:blue", format: .png) { _ in }

    static func render(_ option: String) throws -> ImageProbe {
        var configuration = Renderer.Configuration.unhurried
        configuration.watermark = mark
        let request = try RequestPathParser(verifier: SignatureVerifier.insecure, baseURL: nil,
                                            policy: Renderer.encodePolicy)
            .parse(rawPath: "/insecure/\(option)/plain/http://h/a@png")
        return try ImageProbe(try Renderer(configuration: configuration)
            .render(source, sourceFormat: .png, options: request.options).bytes)
    }

    @Test(arguments: [
        ("wm:1:soea", (390, 195), (10, 5)),
        ("wm:1:nowe:100:50", (110, 55), (10, 5)),
        // imgproxy processing/watermark.go applyWatermark: offsets below 1 are shares of the
        // picture, and a mark may be pushed partly off it
        ("wm:1:nowe:0.25:0.5", (110, 105), (95, 95)),
        ("wm:1:soea:-30:-10", (395, 195), (385, 185)),
    ])
    func anchoredWatermarksSitWhereTheirGravityPutsThem(option: String, mark: (Int, Int), clear: (Int, Int)) throws {
        let image = try Self.render(option)
        #expect(RenderGoldenTests.looks(image, at: mark, like: "blue", tolerance: 10), "\(option)")
        #expect(RenderGoldenTests.looks(image, at: clear, like: "white", tolerance: 10), "\(option)")
    }

    @Test func opacityBlendsWithThePicture() throws {
        let half = try Self.render("wm:0.5:ce").color(x: 200, y: 100)
        #expect(abs(half.red - 128) <= 20 && abs(half.green - 128) <= 20 && half.blue > 240, "\(half)")
    }

    @Test func replicateTilesTheWholePicture() throws {
        let tiled = try Self.render("wm:1:re:10:10")
        for (x, y) in [(5, 5), (385, 5), (5, 185), (205, 95)] {  // tiles every 50 x 30 px
            #expect(RenderGoldenTests.looks(tiled, at: (x, y), like: "blue", tolerance: 10), "(\(x), \(y))")
        }
        #expect(RenderGoldenTests.looks(tiled, at: (45, 5), like: "white", tolerance: 10))  // the spacing
    }

    @Test func aTinyTiledMarkIsTiledAtEightPixelsAtLeast() throws {
        // Given a scale that would make the 40 x 20 mark a speck, tiled with 8 px between tiles
        let tiled = try Self.render("wm:1:re:8:8:0.0001")

        // Then its tiles are 16 x 8 every 24 x 16 pixels, as far as the bottom-right corner
        for (x, y) in [(4, 4), (28, 20), (388, 196)] {
            #expect(RenderGoldenTests.looks(tiled, at: (x, y), like: "blue", tolerance: 10), "(\(x), \(y))")
        }
        for (x, y) in [(20, 4), (4, 12), (380, 4)] {
            #expect(RenderGoldenTests.looks(tiled, at: (x, y), like: "white", tolerance: 10), "(\(x), \(y))")
        }
    }

    @Test func aMarkIsScaledToTheResultsWidthAtMost() throws {
        let huge = try Self.render("wm:1:nowe:0:0:16384")
        // 400 x 200 at most: the whole mark covers the whole picture
        for (x, y) in [(5, 5), (395, 195)] {
            #expect(RenderGoldenTests.looks(huge, at: (x, y), like: "blue", tolerance: 10), "(\(x), \(y))")
        }
    }

    @Test func scaleIsAShareOfTheResultWidth() throws {
        let scaled = try Self.render("wm:1:nowe:0:0:0.5")
        #expect(RenderGoldenTests.looks(scaled, at: (190, 90), like: "blue", tolerance: 10))
        #expect(RenderGoldenTests.looks(scaled, at: (210, 90), like: "white", tolerance: 10))
    }
}
