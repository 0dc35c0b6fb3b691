import Foundation
import Testing
import ThumbdTestSupport

/// The output format, skip_processing and raw as imgproxy answers them, through real nginx and
/// thumbd: each miss and the hits nginx serves alone afterwards agree.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct ImgproxyFormatParityTests {
    static let chrome = ["Accept": "image/avif,image/webp,image/apng,image/*,*/*;q=0.8"]
    static let webpClient = ["Accept": "image/webp,*/*"]
    static let plainClient = ["Accept": "image/apng,image/*,*/*;q=0.8"]

    let origin: TestOrigin
    let png = TestImages.draw("gradient:red-blue", width: 40, height: 30, format: .png)
    let jpeg = TestImages.jpeg(width: 40, height: 30)

    init() throws {
        origin = try TestOrigin()
        origin.serve("/test1.png", .image(png, contentType: "image/png"))
        origin.serve("/photo.jpg", .image(jpeg))
        origin.serve("/opaque.webp", .image(TestImages.draw("gradient:red-blue", width: 40, height: 30, format: .webp),
                                            contentType: "image/webp"))
        origin.serve("/clear.webp", .image(TestImages.draw("gradient:red-none", width: 40, height: 30, format: .webp),
                                           contentType: "image/webp"))
        origin.serve("/page.html", .image(Array("<!doctype html><script>alert(1)</script>".utf8), contentType: "text/html"))
        origin.serve("/script.svg", .image(Array(#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#.utf8),
                                           contentType: "image/svg+xml"))
        origin.serve("/flood.gif", .image(PixelFloods.gif(screen: (20_000, 20_000), frames: [(20_000, 20_000)]),
                                          contentType: "image/gif"))
    }

    /// Each client's answer from thumbd (a miss), then from nginx alone with thumbd stopped (a hit).
    static func missesThenHits(_ stack: TestStack, _ path: String,
                               _ clients: [[String: String]]) throws -> [(miss: HTTPResponse, hit: HTTPResponse)] {
        let misses = try clients.map { try stack.get(path, headers: $0) }
        stack.stopThumbd()
        return try zip(misses, clients).map { ($0, try stack.get(path, headers: $1)) }
    }

    /// An answer that is the source itself, with the source's type.
    static func expectSource(_ response: HTTPResponse, _ source: [UInt8], type: String,
                             sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status == 200, sourceLocation: sourceLocation)
        #expect(response.body == source, sourceLocation: sourceLocation)
        #expect(response.headers["content-type"] == type, sourceLocation: sourceLocation)
    }

    /// Thumbnails nginx could serve: none after a refusal.
    static func servedFiles(_ stack: TestStack) -> [String] {
        stack.cacheFiles().filter { $0.hasPrefix("served/") }
    }

    // MARK: Preferred formats

    // imgproxy processing/processing.go determineOutputFormat (isImageTypePreferred, findPreferredFormat);
    // docs/configuration/options.mdx "Preferred formats"
    @Test(arguments: [("/opaque.webp", "image/jpeg"), ("/clear.webp", "image/png"), ("/test1.png", "image/png"),
                      ("/photo.jpg", "image/jpeg")])
    func aURLWithoutAFormatGetsThePreferredOne(source: String, type: String) throws {
        // Given imgproxy's default preferred formats (jpeg, png, gif) and no negotiation
        let stack = try TestStack(environment: TestStack.signing)
        defer { stack.shutdown() }

        // When a URL that names no format is asked for, then asked again of nginx alone
        let answers = try Self.missesThenHits(stack, "/insecure/rs:fit:20:20/plain/\(origin.url(source))", [[:]])

        // Then both are in the preferred format that fits the source
        for answer in [answers[0].miss, answers[0].hit] {
            #expect(answer.status == 200)
            #expect(answer.headers["content-type"] == type)
            #expect(try ImageProbe(answer.body).format == String(type.dropFirst("image/".count)).uppercased())
        }
    }

    // imgproxy processing/config.go IMGPROXY_PREFERRED_FORMATS
    @Test func thePreferredFormatsAreTheOperators() throws {
        // Given WebP preferred first, under imgproxy's name for the setting
        let stack = try TestStack(environment: TestStack.signing.merging(["IMGPROXY_PREFERRED_FORMATS": "webp,jpeg"]) { $1 })
        defer { stack.shutdown() }

        // Then a WebP source stays WebP, a JPEG one JPEG (listed), and a PNG one becomes WebP
        for (source, type) in [("/opaque.webp", "image/webp"), ("/photo.jpg", "image/jpeg"), ("/test1.png", "image/webp")] {
            let response = try stack.get("/insecure/rs:fit:20:20/plain/\(origin.url(source))")
            #expect(response.headers["content-type"] == type, "\(source)")
        }
    }

    // MARK: Accept

    // imgproxy docs/configuration/options.mdx IMGPROXY_ENFORCE_WEBP; options/parser/processing_options_test.go
    // TestParsePathWebpEnforce; processing/processing.go determineOutputFormat (EnforceWebP)
    @Test func anEnforcedWebPOverridesTheURLsFormatForClientsThatAcceptIt() throws {
        // Given ENFORCE_WEBP, and nginx's site written for it
        let stack = try TestStack(environment: TestStack.signing.merging(["IMGPROXY_ENFORCE_WEBP": "true"]) { $1 },
                                  siteArguments: ["--enforce", "webp"])
        defer { stack.shutdown() }

        // When a URL that names PNG is asked for by a WebP client and by one that accepts neither,
        // from thumbd and then from nginx alone
        let answers = try Self.missesThenHits(stack, "/insecure/rs:fit:20:20/plain/\(origin.url("/photo.jpg"))@png",
                                              [Self.chrome, Self.plainClient])

        // Then the WebP client gets WebP, the other PNG, both varying by Accept, miss and hit alike
        for (answer, type) in zip(answers, ["image/webp", "image/png"]) {
            for response in [answer.miss, answer.hit] {
                #expect(response.status == 200)
                #expect(response.headers["content-type"] == type)
                #expect(response.headers["vary"] == "Accept")
            }
        }
        #expect(origin.requestCount("/photo.jpg") == 1)
    }

    // imgproxy docs/configuration/options.mdx IMGPROXY_ENFORCE_AVIF; options/parser/processing_options_test.go
    // TestParsePathAvifEnforce
    @Test func anEnforcedAVIFComesBeforeWebP() throws {
        let stack = try TestStack(environment: TestStack.signing.merging(
            ["IMGPROXY_ENFORCE_AVIF": "true", "IMGPROXY_ENFORCE_WEBP": "true"]) { $1 },
                                  siteArguments: ["--enforce", "webp", "--enforce", "avif"])
        defer { stack.shutdown() }
        let answers = try Self.missesThenHits(stack, "/insecure/rs:fit:20:20/plain/\(origin.url("/photo.jpg"))@jpg",
                                              [Self.chrome, Self.webpClient, Self.plainClient])
        for (answer, type) in zip(answers, ["image/avif", "image/webp", "image/jpeg"]) {
            #expect(answer.miss.headers["content-type"] == type)
            #expect(answer.hit.headers["content-type"] == type)
        }
    }

    // imgproxy docs/configuration/options.mdx IMGPROXY_AUTO_WEBP "(deprecated alias: IMGPROXY_ENABLE_WEBP_DETECTION)"
    @Test func theDeprecatedWebPDetectionNameStillWorks() throws {
        let stack = try TestStack(environment: TestStack.signing.merging(["IMGPROXY_ENABLE_WEBP_DETECTION": "true"]) { $1 })
        defer { stack.shutdown() }
        let response = try stack.get("/insecure/rs:fit:20:20/plain/\(origin.url("/photo.jpg"))", headers: Self.webpClient)
        #expect(response.headers["content-type"] == "image/webp")
        #expect(response.headers["vary"] == "Accept")
    }

    // MARK: skip_processing

    // imgproxy integration_test/processing_handler_test.go TestSkipProcessingPO, TestSkipProcessingSameFormat
    @Test(arguments: ["/insecure/rs:fill:4:4/skp:png/plain/ORIGIN/test1.png",
                      "/insecure/rs:fill:4:4/skp:png/plain/ORIGIN/test1.png@png"])
    func skippedProcessingAnswersTheSourceItself(_ path: String) throws {
        let stack = try TestStack(environment: TestStack.signing)
        defer { stack.shutdown() }
        let answers = try Self.missesThenHits(stack, path.replacing("ORIGIN", with: origin.url("")), [[:]])
        for response in [answers[0].miss, answers[0].hit] {
            Self.expectSource(response, png, type: "image/png")
        }
    }

    // imgproxy integration_test/processing_handler_test.go TestSkipProcessingDifferentFormat
    @Test func skippedProcessingNeverChangesTheFormatTheURLNames() throws {
        let stack = try TestStack(environment: TestStack.signing)
        defer { stack.shutdown() }
        let response = try stack.get("/insecure/rs:fill:4:4/skp:png/plain/\(origin.url("/test1.png"))@jpg")
        #expect(response.status == 200)
        #expect(response.body != png)
        #expect(try ImageProbe(response.body).format == "JPEG")
    }

    // imgproxy processing/processing.go ProcessImage: shouldSkipStandardProcessing runs before
    // determineOutputFormat, so a negotiating client gets the source too
    @Test func skippedProcessingWinsOverNegotiationForEveryClient() throws {
        // Given WebP and AVIF negotiation on
        let stack = try TestStack(environment: TestStack.signing.merging(
            ["IMGPROXY_AUTO_WEBP": "true", "IMGPROXY_AUTO_AVIF": "true"]) { $1 })
        defer { stack.shutdown() }

        // When a URL skipping JPEG is asked for by every kind of client, then of nginx alone
        let answers = try Self.missesThenHits(stack, "/insecure/rs:fit:20:20/skp:jpg/plain/\(origin.url("/photo.jpg"))",
                                              [Self.chrome, Self.webpClient, Self.plainClient])

        // Then each gets the source itself
        for answer in answers {
            Self.expectSource(answer.miss, jpeg, type: "image/jpeg")
            Self.expectSource(answer.hit, jpeg, type: "image/jpeg")
        }
    }

    // imgproxy processing/processing.go skipStandardProcessing: "we still need to check image
    // dimensions to not send an image bomb to the client"
    @Test func skippedProcessingStillRefusesAPixelFlood() throws {
        let stack = try TestStack(environment: TestStack.signing)
        defer { stack.shutdown() }
        let response = try stack.get("/insecure/skp:gif/plain/\(origin.url("/flood.gif"))")
        #expect(response.status == 422)
        #expect(Self.servedFiles(stack).isEmpty)
    }

    // MARK: raw

    // imgproxy integration_test/processing_handler_test.go TestRawOption; handlers/stream/handler.go
    @Test func rawAnswersTheSourceBytesAndNginxServesThemNext() throws {
        // Given negotiation on, which raw ignores as imgproxy's stream handler does
        let stack = try TestStack(environment: TestStack.signing.merging(["IMGPROXY_AUTO_WEBP": "true"]) { $1 })
        defer { stack.shutdown() }

        // When a raw URL with processing options is asked for, then asked of nginx alone
        let answers = try Self.missesThenHits(stack, "/insecure/raw:1/rs:fill:4:4/plain/\(origin.url("/test1.png"))",
                                              [Self.webpClient])

        // Then both answers are the source's bytes with its type, the same for every client
        for response in [answers[0].miss, answers[0].hit] {
            Self.expectSource(response, png, type: "image/png")
            #expect(response.headers["vary"] == nil)
        }
    }

    // imgproxy handlers/stream/handler.go streams whatever the origin sends; thumbd passes through
    // only images it recognises, from the site's own origin (see README: where thumbd differs)
    @Test(arguments: ["/page.html", "/script.svg"])
    func rawNeverAnswersWhatABrowserWouldRun(_ source: String) throws {
        let stack = try TestStack(environment: TestStack.signing)
        defer { stack.shutdown() }
        let response = try stack.get("/insecure/raw:1/plain/\(origin.url(source))")
        #expect(response.status == 422)
        #expect(response.headers["content-type"]?.hasPrefix("text/plain") == true)
        #expect(Self.servedFiles(stack).isEmpty)
    }

    @Test func rawKeepsTheSourceLimits() throws {
        let stack = try TestStack(environment: TestStack.signing.merging(["IMGPROXY_MAX_SRC_FILE_SIZE": "100"]) { $1 })
        defer { stack.shutdown() }
        #expect(try stack.get("/insecure/raw:1/plain/\(origin.url("/test1.png"))").status == 413)
        stack.stopThumbd()
        let other = try TestStack(environment: TestStack.signing)
        defer { other.shutdown() }
        #expect(try other.get("/insecure/raw:1/plain/\(origin.url("/flood.gif"))").status == 422)
        #expect(Self.servedFiles(stack).isEmpty)
        #expect(Self.servedFiles(other).isEmpty)
    }
}
