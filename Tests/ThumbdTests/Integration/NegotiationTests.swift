import Foundation
import Testing
import ThumbdTestSupport

/// A URL without a format answers each client in the best format it accepts, and nginx's hits
/// agree with thumbd's misses.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct NegotiationTests {
    let origin: TestOrigin

    init() throws {
        origin = try TestOrigin()
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 400, height: 300)))
    }

    @Test func eachClientGetsTheFormatItAcceptsFromThumbdAndFromNginx() throws {
        let stack = try TestStack(environment: TestStack.signing.merging(["THUMBD_AUTO_WEBP": "true", "THUMBD_AUTO_AVIF": "true"]) { $1 })
        let path = "/insecure/rs:fit:80:80/plain/\(origin.url("/photo.jpg"))"
        let clients = [
            ("image/avif,image/webp,*/*", "image/avif", "HEIC"),  // ImageMagick 6 reads AVIF with its HEIC coder
            ("image/webp,*/*", "image/webp", "WEBP"),
            ("image/png,*/*", "image/jpeg", "JPEG"),
        ]

        // Misses: thumbd renders each client's format, and says the answer varies by Accept
        for (accept, type, format) in clients {
            let response = try stack.get(path, headers: ["Accept": accept])
            #expect(response.status == 200)
            #expect(response.headers["content-type"] == type, "\(accept)")
            #expect(response.headers["vary"] == "Accept")
            #expect(try ImageProbe(response.body).format == format)
        }

        // Hits: with thumbd gone, nginx gives each client the same format from the cache, and
        // says each answer varies by Accept, as thumbd did
        stack.stopThumbd()
        for (accept, type, _) in clients {
            let hit = try stack.get(path, headers: ["Accept": accept])
            #expect(hit.status == 200, "\(accept)")
            #expect(hit.headers["content-type"] == type, "\(accept)")
            #expect(hit.headers["vary"] == "Accept", "\(accept)")
        }
        #expect(origin.requestCount("/photo.jpg") == 1)
    }

    @Test(arguments: [true, false])
    func eachClientGetsItsFormatWhoeverAsksFirst(plainClientFirst: Bool) throws {
        // Given negotiation on, and a URL without a format asked for by a client that accepts
        // neither WebP nor AVIF and by one that accepts WebP, in either order
        let stack = try TestStack(environment: TestStack.signing.merging(["THUMBD_AUTO_WEBP": "true", "THUMBD_AUTO_AVIF": "true"]) { $1 })
        defer { stack.shutdown() }
        let path = "/insecure/rs:fit:70:70/plain/\(origin.url("/photo.jpg"))"
        let plain = ["Accept": "image/jpeg,*/*"]
        let webp = ["Accept": "image/webp,*/*"]
        for headers in plainClientFirst ? [plain, webp] : [webp, plain] {
            #expect(try stack.get(path, headers: headers).status == 200)
        }

        // Then, from nginx alone, each gets its own format, marked as varying by Accept
        stack.stopThumbd()
        let plainHit = try stack.get(path, headers: plain)
        let webpHit = try stack.get(path, headers: webp)
        #expect(plainHit.headers["content-type"] == "image/jpeg")
        #expect(webpHit.headers["content-type"] == "image/webp")
        #expect(plainHit.headers["vary"] == "Accept" && webpHit.headers["vary"] == "Accept")
    }

    @Test func aClientThatAcceptsNeitherNeverGetsAVariant() throws {
        let stack = try TestStack(environment: TestStack.signing.merging(["THUMBD_AUTO_WEBP": "true"]) { $1 })
        let path = "/insecure/rs:fit:80:80/plain/\(origin.url("/photo.jpg"))"
        #expect(try stack.get(path, headers: ["Accept": "image/webp"]).headers["content-type"] == "image/webp")
        stack.stopThumbd()
        // only the WebP variant exists: nginx must not offer it to this client, so it asks thumbd (gone: 502)
        #expect(try stack.get(path, headers: ["Accept": "image/jpeg"]).status == 502)
    }

    @Test func withWebPNegotiatedAloneAClientAcceptingBothGetsItsWebPFromNginx() throws {
        // Given AUTO_WEBP alone, and the site written to match
        let stack = try TestStack(environment: TestStack.signing.merging(["THUMBD_AUTO_WEBP": "true"]) { $1 },
                                  siteArguments: ["--auto", "webp"])
        let path = "/insecure/rs:fit:60:60/plain/\(origin.url("/photo.jpg"))"
        let both = ["Accept": "image/avif,image/webp,*/*"]
        #expect(try stack.get(path, headers: both).headers["content-type"] == "image/webp")

        // Then nginx alone gives a client that accepts AVIF too the WebP thumbd made: the map
        // does not send it looking for an AVIF that is never made
        stack.stopThumbd()
        let hit = try stack.get(path, headers: both)
        #expect(hit.status == 200)
        #expect(hit.headers["content-type"] == "image/webp")
        #expect(hit.headers["vary"] == "Accept")
    }

    @Test func aURLWithAFormatIsNotNegotiated() throws {
        let stack = try TestStack(environment: TestStack.signing.merging(["THUMBD_AUTO_WEBP": "true"]) { $1 })
        let response = try stack.get("/insecure/rs:fit:80:80/plain/\(origin.url("/photo.jpg"))@png", headers: ["Accept": "image/webp"])
        #expect(response.headers["content-type"] == "image/png")
        #expect(response.headers["vary"] == nil)
    }
}
