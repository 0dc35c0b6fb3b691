import Foundation
import Testing
import ThumbdTestSupport

/// Each cause of failure answers its status with a one-line body, caches nothing, and leaves
/// thumbd answering.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct ErrorTests {
    let origin: TestOrigin
    let stack: TestStack

    init() throws {
        origin = try TestOrigin()
        stack = try TestStack(environment: ["THUMBD_DOWNLOAD_TIMEOUT": "1", "THUMBD_MAX_SRC_FILE_SIZE": "200000"])
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 400, height: 300)))
        origin.serve("/page.html", .image(Array("<html><body>not an image</body></html>".utf8), contentType: "text/html"))
        origin.serve("/truncated.jpg", .image(Array(TestImages.jpeg(width: 400, height: 300).prefix(300))))
        let (jpeg, png) = (TestImages.jpeg(width: 400, height: 300),
                           TestImages.draw("gradient:red-blue", width: 400, height: 300, format: .png))
        origin.serve("/corrupt.jpg", .image(BrokenImages.jpeg(jpeg, corruptingScan: 0)))
        origin.serve("/bad-crc.png", .image(PNGChunks.rewriting("tEXt", in: png, validCRC: false)))
        origin.serve("/empty.jpg", .image([]))
        origin.serve("/mvg.jpg", .image(Array("push graphic-context\nviewbox 0 0 64 64\nimage over 0,0 0,0 'https://127.0.0.1/x'\npop graphic-context\n".utf8)))
        origin.serve("/broken", .status(500, body: "boom"))
        origin.serve("/gone", .status(410))
        origin.serve("/slow.jpg", .image(TestImages.jpeg(width: 40, height: 30), delay: 3))
        origin.serve("/huge.jpg", .image([UInt8](repeating: 0xff, count: 300_000)))
        origin.serve("/endless.jpg", TestOrigin.Response(headers: [("Content-Type", "image/jpeg")], body: [0xff, 0xd8, 0xff], kind: .endless))
    }

    @Test(arguments: [
        ("/insecure/rs:fit:100:100/plain/ORIGIN/missing.jpg", 404, "source not found"),
        ("/insecure/rs:fit:100:100/plain/ORIGIN/gone", 404, "source not found"),
        ("/insecure/bogus:1/plain/ORIGIN/photo.jpg", 404, "invalid URL: unknown option bogus"),
        ("/insecure/w:wide/plain/ORIGIN/photo.jpg", 404, "invalid URL: invalid w argument \"wide\": expected a whole number from 0 to 16384"),
        ("/insecure/rs:stretch:10:10/plain/ORIGIN/photo.jpg", 404, "invalid URL: invalid rs resizing type \"stretch\": expected one of fit, fill, fill-down, force, auto"),
        ("/insecure/w:100/plain/ORIGIN/photo.jpg@tiff", 404, "invalid URL: invalid extension \"tiff\": expected one of jpg, png, webp, gif, avif, jxl, best"),
        ("/insecure/w:100/plain/ORIGIN/page.html", 422, "cannot process source: source is not a JPEG, PNG, GIF, WebP, AVIF, HEIC, TIFF or BMP image (text/html)"),
        ("/insecure/w:100/plain/ORIGIN/mvg.jpg", 422, "cannot process source: source is not a JPEG, PNG, GIF, WebP, AVIF, HEIC, TIFF or BMP image (image/jpeg)"),
        ("/insecure/w:100/plain/ORIGIN/empty.jpg", 422, "cannot process source: source is not a JPEG, PNG, GIF, WebP, AVIF, HEIC, TIFF or BMP image (image/jpeg)"),
        ("/insecure/w:100/plain/ORIGIN/broken", 502, "origin failed to deliver the source"),
        ("/insecure/w:100/plain/ORIGIN/slow.jpg", 504, "origin timed out"),
        ("/insecure/w:100/plain/ORIGIN/huge.jpg", 413, "source is larger than the limit of 200000 bytes"),
        ("/insecure/w:100/plain/ORIGIN/endless.jpg", 413, "source is larger than the limit of 200000 bytes"),
        ("/insecure/w:100/plain/ftp://127.0.0.1/photo.jpg", 403, "forbidden: only http and https sources are allowed"),
    ])
    func answersEachFailureWithItsStatus(path: String, status: Int, message: String) throws {
        // When
        let response = try stack.get(path.replacingOccurrences(of: "ORIGIN", with: origin.url("")))

        // Then
        #expect(response.status == status)
        #expect(response.text == message + "\n")
        #expect(response.headers["cache-control"] == "no-store")
        #expect(stack.cacheFiles().isEmpty)
        #expect(stack.thumbdIsRunning)
        // and thumbd still makes thumbnails
        #expect(try stack.get("/insecure/w:50/plain/\(origin.url("/photo.jpg"))@png").status == 200)
    }

    @Test(arguments: ["/truncated.jpg", "/corrupt.jpg", "/bad-crc.png"])
    func aBrokenImageIsUnprocessableAndLeavesNothingBehind(path: String) throws {
        let response = try stack.get("/insecure/w:100/plain/\(origin.url(path))@png")
        #expect(response.status == 422)
        // one sentence for the client; what the decoder said goes to the log only
        #expect(response.text == "cannot process source: the image cannot be decoded\n")
        #expect(eventually { stack.thumbdLog.contains("undecodable(") })
        #expect(stack.cacheFiles().isEmpty)
    }

    @Test func aPathNginxNormalisedIsRefusedBeforeAnythingIsWritten() throws {
        // nginx resolves "/../" itself; storing the result would put the file where another URL looks
        let response = try stack.get("/insecure/w:100/plain/\(origin.url("/x/../photo.jpg"))")
        #expect(response.status == 400)
        #expect(stack.cacheFiles().isEmpty)
    }

    @Test func onlyGetAndHeadAreAnswered() throws {
        let path = "/insecure/w:100/plain/\(origin.url("/photo.jpg"))@png"
        #expect(try stack.get(path, method: "HEAD").status == 200)
        #expect(try stack.get("/insecure/w:101/plain/\(origin.url("/photo.jpg"))@png", method: "DELETE").status == 405)
    }
}
