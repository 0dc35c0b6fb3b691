import Foundation
import Testing
import ThumbdTestSupport

/// What one URL can make a render cost is bounded: the largest blur and sharpen sigmas on the
/// largest result dpr makes, and a tiled watermark at the smallest scale, render within the render time limit
/// (MAX_RENDER_SECONDS, 10 s by default), and look as asked.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct CostlyOptionTests {
    /// (what, options) on a 1600 x 1200 result: `rs:fit:200:150` at dpr 8.
    static let worstCases: [(String, String)] = [
        ("the largest blur", "bl:16384"),
        ("a wide blur", "bl:320"),
        ("the largest sharpen", "sh:16384"),
        ("a wide sharpen", "sh:320"),
        ("a tiled watermark at the smallest scale", "wm:1:re:0:0:0.0001"),
        ("all of them", "bl:16384/sh:16384/pix:16384/wm:0.5:re:0:0:0.0001"),
    ]

    @Test(arguments: worstCases)
    func aWorstCaseURLRendersWithinTheRenderTimeLimit(what: String, options: String) throws {
        // Given a 1600 x 1200 photo, red on the left, blue on the right, and a white watermark
        let origin = try TestOrigin()
        origin.serve("/photo.jpg", .image(TestImages.halves(width: 1600, height: 1200, format: .jpeg)))
        let mark = NSTemporaryDirectory() + "thumbd-mark-\(UUID().uuidString).png"
        try Data(TestImages.draw("xc:white", width: 40, height: 20, format: .png)).write(to: URL(fileURLWithPath: mark))
        defer { try? FileManager.default.removeItem(atPath: mark) }
        let stack = try TestStack(environment: ["THUMBD_WATERMARK_PATH": mark])
        defer { stack.shutdown() }

        // When the URL is asked for
        let response = try stack.get("/insecure/rs:fit:200:150/dpr:8/\(options)/plain/\(origin.url("/photo.jpg"))@jpg")

        // Then it is rendered, at its full size, within the limit: thumbd's own render watchdog
        // answers 422 past it (RenderWatchdogTests)
        #expect(response.status == 200, "\(what): \(response.text.prefix(200))")
        guard response.status == 200 else { return }
        let image = try ImageProbe(response.body)
        #expect((image.width, image.height) == (1600, 1200))
        // and as asked: a blur mixes blue into the red 100 px from the edge between them, a
        // tiled watermark whitens everything
        let red = image.color(x: 700, y: 600)
        if options.hasPrefix("bl:") { #expect(red.blue > 40 && red.red < 230, "\(what): \(red)") }
        if options.hasPrefix("wm:") { #expect(red.red > 230 && red.green > 230 && red.blue > 230, "\(what): \(red)") }
    }
}
