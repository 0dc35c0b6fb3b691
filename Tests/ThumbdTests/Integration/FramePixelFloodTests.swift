import Foundation
import Testing
import ThumbdTestSupport

/// A source whose first frame is tiny and a later one huge passes a check of the first frame, and
/// then an animation decodes every frame: thumbd reads every frame's header first.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct FramePixelFloodTests {
    static let floods: [(String, [UInt8], String)] = [
        ("a GIF of a 1x1 frame, then one of 11000x11000", PixelFloods.gif(screen: (1, 1), frames: [(1, 1), (11000, 11000)]), "gif"),
        ("a TIFF of a 1x1 page, then one of 11000x11000", PixelFloods.tiff(pages: [(1, 1), (11000, 11000)]), "tiff"),
    ]

    @Test(arguments: floods)
    func aHugeLaterFrameIsRefusedFromItsHeader(what: String, source: [UInt8], type: String) throws {
        // Given animations allowed, TIFF sources enabled, and the flood on an origin
        let origin = try TestOrigin()
        origin.serve("/flood", .image(source, contentType: "image/\(type)"))
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 600, height: 400)))
        let stack = try TestStack(environment: ["THUMBD_MAX_ANIMATION_FRAMES": "10",
                                                "THUMBD_SOURCE_FORMATS": "jpeg,png,gif,webp,tiff"])
        defer { stack.shutdown() }
        let idle = try #require(stack.thumbdResidentKiB())

        // When it is asked for in a format that animates
        let response = try stack.get("/insecure/rs:fit:100:100/plain/\(origin.url("/flood"))@webp")

        // Then it is refused, naming the frame, before anything is decoded: the refusal is the
        // header check's, and no memory was taken (the frame's pixels alone are hundreds of MiB)
        #expect(response.status == 422, "\(what): \(response.text)")
        #expect(response.text.contains("frame 2 of 2 is 11000x11000, over the limit"), "\(what): \(response.text)")
        let resident = try #require(stack.thumbdResidentKiB())
        #expect(resident - idle < 64 * 1024, "\(what): \(idle) KiB idle, \(resident) KiB after")
        #expect(stack.cacheFiles().isEmpty)
        #expect(try stack.get("/insecure/rs:fit:100:100/plain/\(origin.url("/photo.jpg"))@webp").status == 200)
    }
}
