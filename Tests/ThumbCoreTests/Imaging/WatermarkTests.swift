import Testing
@testable import ThumbCore

/// `wm` over a 400 x 200 white source with a 40 x 20 blue watermark configured.
struct WatermarkTests {
    static let source = GoldenImages.render(width: 400, height: 200, background: "xc:white", format: .png) { _ in }
    static let mark = GoldenImages.render(width: 40, height: 20, background: "xc:blue", format: .png) { _ in }

    static func render(_ option: String) throws -> ImageProbe {
        var configuration = Renderer.Configuration()
        configuration.watermark = mark
        let request = try RequestPathParser(verifier: SignatureVerifier.insecure, baseURL: nil)
            .parse(rawPath: "/insecure/\(option)/plain/http://h/a@png")
        return try ImageProbe(try Renderer(configuration: configuration)
            .render(source, sourceFormat: .png, options: request.options).bytes)
    }

    @Test func anchoredWatermarksSitInTheirCorner() throws {
        let corner = try Self.render("wm:1:soea")
        #expect(RenderGoldenTests.looks(corner, at: (390, 195), like: "blue", tolerance: 10))
        #expect(RenderGoldenTests.looks(corner, at: (10, 5), like: "white", tolerance: 10))
        let offset = try Self.render("wm:1:nowe:100:50")
        #expect(RenderGoldenTests.looks(offset, at: (110, 55), like: "blue", tolerance: 10))
        #expect(RenderGoldenTests.looks(offset, at: (10, 5), like: "white", tolerance: 10))
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

    @Test func scaleIsAShareOfTheResultWidth() throws {
        let scaled = try Self.render("wm:1:nowe:0:0:0.5")
        #expect(RenderGoldenTests.looks(scaled, at: (190, 90), like: "blue", tolerance: 10))
        #expect(RenderGoldenTests.looks(scaled, at: (210, 90), like: "white", tolerance: 10))
    }
}
