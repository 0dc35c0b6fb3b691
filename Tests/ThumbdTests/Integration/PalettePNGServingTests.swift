import Foundation
import Testing

/// imgproxy's PNG_QUANTIZE through real nginx and thumbd: a PNG thumbnail is a palette PNG, and
/// stays one as the static file nginx serves.
@Suite(.blocking, .timeLimit(.minutes(3)))
struct PalettePNGServingTests {
    @Test func imgproxysSettingWritesAPalettePNGNginxThenServes() throws {
        // Given a logo on transparency and thumbd started with imgproxy's names
        let origin = try TestOrigin()
        origin.serve("/logo.png", .image(PalettePNGTests.logo))
        let stack = try TestStack(environment: TestStack.signing.merging(
            ["IMGPROXY_PNG_QUANTIZE": "true", "IMGPROXY_PNG_QUANTIZATION_COLORS": "64"]) { $1 })
        defer { stack.shutdown() }
        let path = "/insecure/rs:fit:300:200/plain/\(origin.url("/logo.png"))@png"

        // When it is asked for
        let miss = try stack.get(path)

        // Then it is a palette PNG of at most 64 colours, its transparency kept
        #expect(miss.status == 200)
        #expect(miss.headers["content-type"] == "image/png")
        let palette = try PNGPalette(miss.body)
        #expect(palette.colourType == 3 && palette.paletteEntries <= 64 && palette.transparencyEntries > 0)
        #expect(try ImageProbe(miss.body).alpha(x: 2, y: 2) == 0)
        // and nginx serves the same file with thumbd gone
        stack.stopThumbd()
        let hit = try stack.get(path)
        #expect(hit.status == 200 && hit.body == miss.body)
    }
}
