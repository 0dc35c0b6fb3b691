import Foundation
import Testing
import ThumbdTestSupport

/// Options that shape the answer rather than the pixels: expiry, download names, pass-through.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct ResponseOptionTests {
    let origin: TestOrigin
    let stack: TestStack

    init() throws {
        origin = try TestOrigin()
        stack = try TestStack(environment: TestStack.signing)
        origin.serve("/cat.jpg", .image(TestImages.jpeg(width: 200, height: 100)))
        origin.serve("/dog.png", .image(TestImages.draw("gradient:red-blue", width: 200, height: 100, format: .png),
                                        contentType: "image/png"))
    }

    @Test func anExpiredURLIsNotFoundAndAFutureOneWorks() throws {
        let now = Int(Date().timeIntervalSince1970)
        let expired = try stack.get("/insecure/w:50/exp:\(now - 60)/plain/\(origin.url("/cat.jpg"))@png")
        #expect(expired.status == 404)
        #expect(expired.text == "URL expired\n")
        #expect(try stack.get("/insecure/w:50/exp:\(now + 3600)/plain/\(origin.url("/cat.jpg"))@png").status == 200)
        #expect(origin.requestCount("/cat.jpg") == 1)
    }

    @Test func anExpiringURLIsServedUntilItsTimeAndCachedNoLonger() throws {
        // Given a URL that expires in three seconds
        let expiresAt = Int(Date().timeIntervalSince1970) + 3
        let path = "/insecure/w:60/exp:\(expiresAt)/plain/\(origin.url("/cat.jpg"))@png"

        // When it is asked for twice before then
        let miss = try stack.get(path)
        let hit = try stack.get(path)

        // Then both are answered, neither may be cached past the expiry, and the file is one
        // nginx never serves by itself
        for response in [miss, hit] {
            #expect(response.status == 200)
            let maxAge = response.headers["cache-control"].flatMap { Int($0.split(separator: "=").last ?? "") }
            #expect(maxAge != nil && maxAge! <= 3, "\(response.headers["cache-control"] ?? "")")
        }
        #expect(stack.cacheFiles().allSatisfy { $0.hasPrefix("private/") })
        // and once the time has passed, nginx answers 404 for it (the wall clock's time: exp is
        // in its whole seconds, so this waits for real time to pass)
        try waitUntil("the expiry has passed", timeout: 10) { Int(Date().timeIntervalSince1970) > expiresAt }
        #expect(try stack.get(path).status == 404)
    }

    @Test func filesOnlyThumbdAnswersForAreNotServedByTheirHashedNames() throws {
        // Given thumbnails stored where only thumbd answers: one with an expiry (which thumbd
        // checks on every request) and one with a download name (a header only thumbd sends)
        let expiresAt = Int(Date().timeIntervalSince1970) + 3600
        for path in ["/insecure/w:40/exp:\(expiresAt)/plain/\(origin.url("/cat.jpg"))@png",
                     "/insecure/w:40/fn:holiday/att:1/plain/\(origin.url("/cat.jpg"))@webp"] {
            #expect(try stack.get(path).status == 200)
        }
        let hashed = stack.cacheFiles()
        #expect(hashed.count == 2 && hashed.allSatisfy { $0.hasPrefix("private/") })

        // When a client asks nginx for the files by name (the digest of a URL it knows)
        for file in hashed {
            let response = try stack.get("/" + file)

            // Then nginx does not serve them: an expired URL stays expired, a download stays one
            #expect(response.status != 200, "\(file)")
            #expect(response.headers["content-type"]?.hasPrefix("image/") != true, "\(file)")
        }
    }

    @Test func withoutAFilenameTheSourceNameIsUsed() throws {
        let response = try stack.get("/insecure/w:50/att:1/plain/\(origin.url("/cat.jpg"))@png")
        #expect(response.headers["content-disposition"] == "attachment; filename=\"cat.png\"")
    }

    @Test func skipProcessingPassesTheSourceThrough() throws {
        let response = try stack.get("/insecure/w:50/skp:png/plain/\(origin.url("/dog.png"))")
        let image = try ImageProbe(response.body)
        #expect((image.format, image.width, image.height) == ("PNG", 200, 100))
        // a JPEG source is not in the list: it is processed
        #expect(try ImageProbe(try stack.get("/insecure/w:50/skp:png/plain/\(origin.url("/cat.jpg"))").body).width == 50)
    }

    /// imgproxy skips only when the source is already in the format asked for: a PNG source with
    /// `@webp` is made into a WebP, as the same URL without `skp` would be (they share one job).
    @Test func skipProcessingNeverChangesTheFormatAskedFor() throws {
        let image = try ImageProbe(try stack.get("/insecure/w:50/skp:png/plain/\(origin.url("/dog.png"))@webp").body)
        #expect((image.format, image.width, image.height) == ("WEBP", 50, 25))
    }
}
