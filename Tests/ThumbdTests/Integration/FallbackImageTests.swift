import Foundation
import Testing
import ThumbdTestSupport

/// imgproxy's fallback image: a source that cannot be fetched or decoded is answered with the
/// configured image, rendered with the URL's options, never stored, kept by clients briefly.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
final class FallbackImageTests {
    let origin: TestOrigin
    let fallbackPath: String
    /// Magenta: whatever the options make of it, its pixels say it is the fallback.
    static let fallback = TestImages.draw("xc:magenta", width: 400, height: 300, format: .png)

    init() throws {
        origin = try TestOrigin()
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 600, height: 400)))
        origin.serve("/text.html", .init(headers: [("Content-Type", "text/html")], body: Array("<p>no image</p>".utf8)))
        origin.serve("/fallback.png", .image(Self.fallback, contentType: "image/png"))
        fallbackPath = NSTemporaryDirectory() + "thumbd-fallback-\(UUID().uuidString).png"
        try Data(Self.fallback).write(to: URL(fileURLWithPath: fallbackPath))
    }

    // A test gets an instance of its own, and with it a file of its own to leave behind.
    deinit { unlink(fallbackPath) }

    @Test func aMissingSourceGetsTheFallbackRenderedWithTheURLsOptionsAndNothingIsStored() throws {
        let stack = try TestStack(environment: ["THUMBD_FALLBACK_IMAGE_PATH": fallbackPath])
        defer { stack.shutdown() }

        let response = try stack.get("/insecure/rs:fill:100:80/plain/\(origin.url("/gone.jpg"))@webp")

        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "image/webp")
        #expect(response.headers["cache-control"] == "public, max-age=60")
        #expect(response.headers["server-timing"] == "thumbd;desc=fallback")
        let image = try ImageProbe(response.body)
        #expect((image.format, image.width, image.height) == ("WEBP", 100, 80))
        let center = image.color(x: 50, y: 40)
        #expect(center.red > 230 && center.green < 25 && center.blue > 230, "\(center)")
        #expect(stack.cacheFiles().isEmpty)
        #expect(try stack.metrics()["thumbd_fallbacks_total"] == 1)
    }

    @Test func theStatusAndLifetimeAreConfigurableAndAnUndecodableSourceFallsBackToo() throws {
        let stack = try TestStack(environment: [
            "THUMBD_FALLBACK_IMAGE_PATH": fallbackPath, "IMGPROXY_FALLBACK_IMAGE_HTTP_CODE": "404", "IMGPROXY_FALLBACK_IMAGE_TTL": "5",
        ])
        defer { stack.shutdown() }

        let response = try stack.get("/insecure/rs:fit:50:50/plain/\(origin.url("/text.html"))@png")

        #expect(response.status == 404)
        #expect(response.headers["cache-control"] == "public, max-age=5")
        #expect(try ImageProbe(response.body).width == 50)
        #expect(stack.cacheFiles().isEmpty)
    }

    @Test func zeroKeepsTheFailuresStatusAndTheThumbnailsLifetime() throws {
        // imgproxy-docs configuration/options.mdx: FALLBACK_IMAGE_HTTP_CODE 0 is "the usual HTTP
        // code"; FALLBACK_IMAGE_TTL 0 is IMGPROXY_TTL's value (a year, as thumbnails here)
        let stack = try TestStack(environment: [
            "THUMBD_FALLBACK_IMAGE_PATH": fallbackPath, "IMGPROXY_FALLBACK_IMAGE_HTTP_CODE": "0", "IMGPROXY_FALLBACK_IMAGE_TTL": "0",
        ])
        defer { stack.shutdown() }

        let missing = try stack.get("/insecure/rs:fit:50:50/plain/\(origin.url("/gone.jpg"))@png")
        let undecodable = try stack.get("/insecure/rs:fit:50:50/plain/\(origin.url("/text.html"))@png")

        #expect(missing.status == 404 && missing.headers["server-timing"] == "thumbd;desc=fallback")
        #expect(undecodable.status == 422 && undecodable.headers["server-timing"] == "thumbd;desc=fallback")
        #expect(missing.headers["cache-control"] == "public, max-age=31536000")
        #expect(try ImageProbe(undecodable.body).width == 50)
        #expect(stack.cacheFiles().isEmpty)
    }

    @Test(.timeLimit(.minutes(1)))
    func aBrokenSourceIsRenderedOnceForItsLifetimeHoweverOftenItIsAskedFor() throws {
        // Given a source the origin does not have
        let stack = try TestStack(environment: ["THUMBD_FALLBACK_IMAGE_PATH": fallbackPath])
        defer { stack.shutdown() }
        let path = "/insecure/rs:fit:60:60/plain/\(origin.url("/gone.jpg"))@png"

        // When it is asked for 200 times, one request after another: each its own job
        let answers = try (0..<200).map { _ in try stack.get(path) }

        // Then each gets the fallback, rendered once, and nothing is stored
        #expect(answers.allSatisfy { $0.status == 200 && $0.headers["server-timing"] == "thumbd;desc=fallback" })
        let last = try ImageProbe(answers[199].body).color(x: 30, y: 20)
        #expect(last.red > 230 && last.green < 25 && last.blue > 230, "\(last)")
        let metrics = try stack.metrics()
        #expect(metrics["thumbd_fallback_renders_total"] == 1)
        #expect(metrics["thumbd_fallbacks_total"] == 200)
        #expect(stack.cacheFiles().isEmpty)
    }

    @Test(.timeLimit(.minutes(1)))
    func theRealThumbnailAppearsOnceTheOriginRecovers() throws {
        // Given a fallback kept for 1 s standing in for a missing source
        let stack = try TestStack(environment: [
            "THUMBD_FALLBACK_IMAGE_PATH": fallbackPath, "THUMBD_FALLBACK_IMAGE_TTL": "1", "THUMBD_NOT_FOUND_CACHE_TTL": "0",
        ])
        defer { stack.shutdown() }
        let path = "/insecure/rs:fit:60:60/plain/\(origin.url("/later.jpg"))@png"
        #expect(try stack.get(path).headers["server-timing"] == "thumbd;desc=fallback")

        // When the origin has the image: nginx still asks thumbd (nothing was stored), which makes
        // the real thumbnail once the fallback's second has passed
        origin.serve("/later.jpg", .image(TestImages.jpeg(width: 600, height: 400)))
        var recovered: HTTPResponse?
        #expect(try eventually {
            recovered = try stack.get(path)
            return recovered?.headers["server-timing"] == "thumbd;desc=miss"
        })

        // Then it is the real thumbnail, stored
        let thumbnail = try #require(recovered)
        #expect(thumbnail.status == 200)
        #expect(try ImageProbe(thumbnail.body).color(x: 30, y: 1).blue < 60)  // the gradient's red top, not magenta
        #expect(stack.cacheFiles().count == 1)
    }

    @Test func requestsThatAreWrongThemselvesGetTheirErrorNotTheFallback() throws {
        let stack = try TestStack(environment: ["THUMBD_FALLBACK_IMAGE_PATH": fallbackPath, "THUMBD_ALLOWED_SOURCES": origin.url("/photo")])
        defer { stack.shutdown() }

        #expect(try stack.get("/insecure/nonsense:1/plain/\(origin.url("/photo.jpg"))@png").status == 404)
        #expect(try stack.get("/insecure/w:50/plain/\(origin.url("/elsewhere.jpg"))@png").status == 403)
    }

    @Test func aFallbackURLIsFetchedOnceAtStart() throws {
        let stack = try TestStack(environment: ["THUMBD_FALLBACK_IMAGE_URL": origin.url("/fallback.png")])
        defer { stack.shutdown() }

        for width in [40, 41] {
            let response = try stack.get("/insecure/w:\(width)/plain/\(origin.url("/gone.jpg"))@png")
            #expect(response.status == 200)
            #expect(try ImageProbe(response.body).width == width)
        }
        #expect(origin.requestCount("/fallback.png") == 1)
    }

    @Test(.timeLimit(.minutes(2)))
    func aFallbackURLWhoseOriginIsDownAtStartIsFetchedOnceItIsBack() throws {
        // Given a fallback URL whose origin fails at start
        let fallbackOrigin = try TestOrigin()
        fallbackOrigin.serve("/fallback.png", .status(503))
        let stack = try TestStack(environment: [
            "THUMBD_FALLBACK_IMAGE_URL": fallbackOrigin.url("/fallback.png"), "THUMBD_NOT_FOUND_CACHE_TTL": "0",
        ])
        defer { stack.shutdown() }
        let path = "/insecure/w:40/plain/\(origin.url("/gone.jpg"))@png"

        // Then thumbd serves, a failed source getting its own error as with no fallback set
        #expect(stack.thumbdIsRunning)
        let meanwhile = try stack.get(path)
        #expect(meanwhile.status == 404 && meanwhile.headers["server-timing"] != "thumbd;desc=fallback")

        // When the fallback's origin answers again
        fallbackOrigin.serve("/fallback.png", .image(Self.fallback, contentType: "image/png"))

        // Then a later try loads it, and a failed source gets it
        #expect(try eventually(timeout: 60) { try stack.get(path).headers["server-timing"] == "thumbd;desc=fallback" })
        #expect(fallbackOrigin.requestCount("/fallback.png") >= 2)
        let log = stack.thumbdLog
        #expect(log.contains("cannot load the fallback image") && log.contains("fallback image loaded"), "\(log)")
    }
}
