import Foundation
import Testing

/// Autoquality through real nginx and thumbd, switched on by imgproxy's setting: a simple picture
/// is written at the lowest quality allowed, a URL can turn it off, and each is its own file.
@Suite(.blocking, .timeLimit(.minutes(3)))
struct AutoQualityServingTests {
    @Test func theSettingChoosesTheQualityAndTheURLCanTurnItOff() throws {
        // Given a soft gradient and thumbd with IMGPROXY_AUTOQUALITY_METHOD=dssim (imgproxy's 70...80)
        let origin = try TestOrigin()
        let soft = TestImages.draw("gradient:#8090a0-#a0b0c0", width: 900, height: 600, format: .png)
        origin.serve("/soft.png", .image(soft))
        let stack = try TestStack(environment: ["IMGPROXY_AUTOQUALITY_METHOD": "dssim"])
        defer { stack.shutdown() }
        let source = "plain/\(origin.url("/soft.png"))@jpg"

        // When it is asked for with the setting's autoquality, and with it off
        let searched = try stack.get("/insecure/rs:fill:300:200/\(source)")
        let fixed = try stack.get("/insecure/rs:fill:300:200/aq:none/\(source)")

        // Then the gradient needs no more than the lowest quality; off, it is JPEG's 80
        #expect(searched.status == 200)
        #expect(fixed.status == 200)
        #expect(try ImageProbe(searched.body).quality == 70)
        #expect(try ImageProbe(fixed.body).quality == 80)
        #expect(searched.body.count < fixed.body.count)
        // and the quality chosen is in the metrics, for the one thumbnail searched
        let scrape = try PrometheusParser.parse(try stack.scrape().body)
        let family = "thumbd_autoquality_quality"
        #expect(scrape[family]?.type == "histogram")
        #expect(scrape[family]?.value(family + "_count") == 1)
        #expect(scrape[family]?.value(family + "_sum") == 70)
        // and each is served again as stored, a hit nginx answers
        let again = try stack.get("/insecure/rs:fill:300:200/\(source)")
        #expect(again.body == searched.body)
        #expect(again.headers["cache-control"] == "public, max-age=31536000, immutable")
    }
}
