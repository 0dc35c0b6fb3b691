import Foundation
import Testing
@testable import ThumbRequest

/// Real nginx + thumbd + an origin on 127.0.0.1: what a browser gets, and who served it.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct ThumbnailServingTests {
    let origin: TestOrigin
    let stack: TestStack

    init() throws {
        origin = try TestOrigin()
        stack = try TestStack(environment: TestStack.signing)
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 1200, height: 800)))
        origin.serve("/halves.png", .image(TestImages.halves(width: 800, height: 400, format: .png), contentType: "image/png"))
    }

    @Test(arguments: [
        ("rs:fit:300:300", "webp", "WEBP", 300, 200),
        ("rs:fill:300:300", "webp", "WEBP", 300, 300),
        ("rs:force:300:300", "png", "PNG", 300, 300),
        ("rs:fill:200:100", "jpg", "JPEG", 200, 100),
        ("s:600:0", "gif", "GIF", 600, 400),
        ("rt:fit/w:2400/h:1600", "png", "PNG", 1200, 800),
        ("rs:fit:2400:1600:1", "jpg", "JPEG", 2400, 1600),
    ])
    func answersTheAskedSizeAndFormat(options: String, ext: String, format: String, width: Int, height: Int) throws {
        // When
        let response = try stack.get("/insecure/\(options)/plain/\(origin.url("/photo.jpg"))@\(ext)")

        // Then
        #expect(response.status == 200, "\(response.text)")
        #expect(response.headers["content-type"] == "image/\(ext == "jpg" ? "jpeg" : ext)")
        let image = try ImageProbe(response.body)
        #expect(image.format == format)
        #expect((image.width, image.height) == (width, height))
    }

    @Test(arguments: [("webp", "webp"), ("jpg", "jpeg"), ("jpeg", "jpeg"), ("png", "png"), ("gif", "gif"), ("avif", "avif")])
    func aHitIsServedByNginxWithThumbdStopped(ext: String, type: String) throws {
        // Given a thumbnail made once, stored by its URL's signature
        let path = "/insecure/rs:fill:150:100/plain/\(origin.url("/photo.jpg"))@\(ext)"
        let miss = try stack.get(path)
        #expect(miss.status == 200)
        let stored = "." + (try #require(ImageFormat(extension: ext))).fileExtension
        #expect(stack.cacheFiles().contains { $0.hasPrefix("served/") && $0.hasSuffix(stored) }, "\(stack.cacheFiles())")

        // When thumbd is gone
        stack.stopThumbd()
        let hit = try stack.get(path)

        // Then nginx alone serves the same bytes, as a static file of the format named, cacheable for long
        #expect(hit.status == 200)
        #expect(hit.body == miss.body)
        #expect(hit.headers["content-type"] == "image/\(type)")
        #expect(hit.headers["etag"] != nil)
        #expect(hit.headers["cache-control"] == "public, max-age=31536000, immutable")
        #expect(origin.requestCount("/photo.jpg") == 1)
        // and a thumbnail never made is not: nginx cannot reach thumbd
        #expect(try stack.get("/insecure/rs:fill:151:100/plain/\(origin.url("/photo.jpg"))@\(ext)").status == 502)
    }

    @Test func fillCropsByGravity() throws {
        // Given a source whose left half is red and right half blue
        let source = origin.url("/halves.png")

        // When cropped to a square anchored west, then east
        let west = try ImageProbe(try stack.get("/insecure/rs:fill:100:100/g:we/plain/\(source)@png").body)
        let east = try ImageProbe(try stack.get("/insecure/rs:fill:100:100/g:ea/plain/\(source)@png").body)

        // Then each kept its own half
        #expect(west.color(x: 50, y: 50).red > 200 && west.color(x: 50, y: 50).blue < 50)
        #expect(east.color(x: 50, y: 50).blue > 200 && east.color(x: 50, y: 50).red < 50)
    }

    @Test func withoutExtensionTheSourceFormatIsKeptAndNginxServesItWithItsType() throws {
        let path = "/insecure/rs:fit:100:100/plain/\(origin.url("/halves.png"))"
        let miss = try stack.get(path)
        #expect(miss.status == 200)
        #expect(miss.headers["content-type"] == "image/png")

        stack.stopThumbd()
        let hit = try stack.get(path)
        #expect(hit.status == 200)
        #expect(hit.headers["content-type"] == "image/png")
        #expect(try ImageProbe(hit.body).format == "PNG")
    }

    @Test func twoSpellingsOfOneThumbnailShareOneJobAndBothBecomeStaticFiles() throws {
        // Given the same thumbnail as a plain and as a base64 source, with long and short names
        let url = origin.url("/photo.jpg")
        let plain = "/insecure/rs:fill:120:80/q:70/plain/\(url)@webp"
        let encoded = "/insecure/resize:fill:120:80/quality:70/\(Base64URL.encode(Array(url.utf8))).webp"

        // When both are asked, one after the other
        let first = try stack.get(plain)
        let second = try stack.get(encoded)

        // Then the origin was asked once, one render happened, and both paths are files
        #expect(first.status == 200 && second.status == 200)
        #expect(first.body == second.body)
        #expect(origin.requestCount("/photo.jpg") == 1)
        #expect(stack.jobLogLines.count == 1)
        stack.stopThumbd()
        #expect(try stack.get(plain).status == 200)
        #expect(try stack.get(encoded).status == 200)
    }

    @Test func theMissIsSignedAndSignaturesAreChecked() throws {
        // Given thumbd with a key (the test vector's key and salt)
        let signed = try TestStack(environment: ["THUMBD_KEY": "736563726574", "THUMBD_SALT": "68656C6C6F"])
        defer { signed.shutdown() }
        let path = "/rs:fit:100:100/plain/\(origin.url("/photo.jpg"))@png"
        let verifier = SignatureVerifier(pairs: [.init(key: Array("secret".utf8), salt: Array("hello".utf8))])
        let signature = verifier.signature(for: Substring(path), with: verifier.pairs[0])

        // Then the right signature renders, a wrong or missing one is refused
        #expect(try signed.get("/\(signature)\(path)").status == 200)
        let forged = try signed.get("/AAAA\(signature.dropFirst(4))\(path)")
        #expect(forged.status == 403)
        #expect(forged.text == "forbidden: invalid signature\n")
        #expect(try HTTPClient.get(port: signed.port, path: "/insecure\(path)").status == 403)
        #expect(signed.cacheFiles().count == 1)
    }

    @Test func noTempFilesAreLeftInTheCache() throws {
        for size in [100, 110, 120] {
            _ = try stack.get("/insecure/rs:fit:\(size):\(size)/plain/\(origin.url("/photo.jpg"))@jpg")
        }
        let files = stack.cacheFiles()
        #expect(files.count == 3)
        #expect(files.allSatisfy { !$0.contains(".thumbd-tmp-") })
    }
}
