import Foundation
import Testing

/// JPEG XL through real nginx and thumbd: asked for by name, negotiated in the order set, served by
/// nginx with its type; a JPEG XL source refused by name.
@Suite(.blocking, .timeLimit(.minutes(5)))
struct JXLServingTests {
    static let safari = "image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,"
        + "image/svg+xml,image/*;q=0.8,*/*;q=0.5"
    static let negotiatingAll = TestStack.signing.merging(
        ["THUMBD_AUTO_WEBP": "true", "THUMBD_AUTO_AVIF": "true", "THUMBD_AUTO_JXL": "true"]) { $1 }
    static let siteNegotiatingAll = ["--auto", "avif", "--auto", "jxl", "--auto", "webp"]

    @Test func eachQualityIsItsOwnFileServedWithItsType() throws {
        // Given a picture with edges and colour on an origin
        let origin = try TestOrigin()
        origin.serve("/colourful.png", .image(ChromaTests.colourful))
        let stack = try TestStack(environment: TestStack.signing)
        defer { stack.shutdown() }
        let paths = [30, 90].map { "/insecure/rs:fill:300:200/q:\($0)/plain/\(origin.url("/colourful.png"))@jxl" }

        // When it is asked for as JPEG XL at q30 and q90
        let misses = try paths.map { try stack.get($0) }

        // Then both are JPEG XL, the q90 one larger, each decoded by djxl
        for miss in misses {
            #expect(miss.status == 200 && miss.headers["content-type"] == "image/jxl")
            #expect(try JXLTests.referenceDecode(miss.body).info.contains("JPEG XL image, 300x200, lossy"))
        }
        #expect(misses[0].body.count < misses[1].body.count, "\(misses.map(\.body.count))")
        // and nginx serves each as stored, with thumbd gone
        stack.stopThumbd()
        for (path, miss) in zip(paths, misses) {
            let hit = try stack.get(path)
            #expect(hit.status == 200 && hit.body == miss.body && hit.headers["content-type"] == "image/jxl")
        }
    }

    @Test(arguments: [
        // thumbd's order: Safari, which accepts both, gets AVIF; JPEG XL goes where AVIF is not accepted
        ("", [], [(Self.safari, "image/avif"), ("image/jxl,image/webp,*/*", "image/jxl"), ("image/webp,*/*", "image/webp"),
                  ("image/png,*/*", "image/jpeg")]),
        // imgproxy's order, set on both sides: Safari gets JPEG XL
        ("jxl,avif,webp", ["--order", "jxl,avif,webp"],
         [(Self.safari, "image/jxl"), ("image/avif,image/webp,*/*", "image/avif"), ("image/png,*/*", "image/jpeg")]),
    ])
    func eachClientGetsTheFirstFormatItAcceptsInTheOrderSet(order: String, siteOrder: [String],
                                                            clients: [(accept: String, type: String)]) throws {
        // Given every format negotiated, in the order set, and the site written to match
        let origin = try TestOrigin()
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 400, height: 300)))
        let environment = order.isEmpty ? Self.negotiatingAll
            : Self.negotiatingAll.merging(["THUMBD_FORMAT_NEGOTIATION_ORDER": order]) { $1 }
        let stack = try TestStack(environment: environment, siteArguments: Self.siteNegotiatingAll + siteOrder)
        defer { stack.shutdown() }
        let path = "/insecure/rs:fit:80:80/plain/\(origin.url("/photo.jpg"))"

        // When each client asks for a URL without a format, thumbd answers in its format
        for client in clients {
            let miss = try stack.get(path, headers: ["Accept": client.accept])
            #expect(miss.status == 200 && miss.headers["content-type"] == client.type, "\(client.accept)")
            #expect(miss.headers["vary"] == "Accept")
        }
        if let jxl = clients.first(where: { $0.type == "image/jxl" }) {
            #expect(try JXLTests.referenceDecode(try stack.get(path, headers: ["Accept": jxl.accept]).body).info
                .contains("JPEG XL image, 80x60"))
        }

        // Then, with thumbd gone, nginx gives each client the same file
        stack.stopThumbd()
        for client in clients {
            let hit = try stack.get(path, headers: ["Accept": client.accept])
            #expect(hit.status == 200 && hit.headers["content-type"] == client.type, "\(client.accept)")
            #expect(hit.headers["vary"] == "Accept")
        }
        #expect(origin.requestCount("/photo.jpg") == 1)
    }

    @Test func aJPEGXLSourceIsRefusedByName() throws {
        // Given a JPEG XL on the origin (thumbd's own rendering of a picture)
        let origin = try TestOrigin()
        origin.serve("/photo.jxl", .image(try JXLTests.render(ChromaTests.colourful)))
        let stack = try TestStack(environment: TestStack.signing)
        defer { stack.shutdown() }

        // When it is asked for as a source
        let response = try stack.get("/insecure/rs:fit:100:100/plain/\(origin.url("/photo.jxl"))@png")

        // Then the answer says why, and nothing is stored
        #expect(response.status == 422)
        #expect(response.text.contains("source is a JPEG XL image, which thumbd writes but does not read"), "\(response.text)")
        stack.stopThumbd()
        #expect(try stack.get("/insecure/rs:fit:100:100/plain/\(origin.url("/photo.jxl"))@png").status == 502)
    }
}
