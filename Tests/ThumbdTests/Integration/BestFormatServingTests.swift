import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbRequest

/// The best format through real nginx and thumbd: each class of client gets the smallest of the
/// candidates it accepts, stored under its class, and nginx serves it afterwards with its type.
@Suite(.blocking, .timeLimit(.minutes(5)))
struct BestFormatServingTests {
    static let chrome = "image/avif,image/webp,image/apng,image/*,*/*;q=0.8"
    static let plain = "image/png,*/*"
    static let negotiating = TestStack.signing.merging(["THUMBD_AUTO_WEBP": "true", "THUMBD_AUTO_AVIF": "true"]) { $1 }

    @Test(arguments: ["/colourful.png", "/logo.png"])
    func eachClassGetsTheSmallestCandidateItAcceptsFromThumbdAndThenFromNginx(source: String) throws {
        // Given a photo-like picture and a flat logo on transparency
        let origin = try TestOrigin()
        origin.serve("/colourful.png", .image(ChromaTests.colourful))
        origin.serve("/logo.png", .image(PalettePNGTests.logo))
        let stack = try TestStack(environment: Self.negotiating)
        defer { stack.shutdown() }
        let base = "/insecure/rs:fit:300:200/plain/\(origin.url(source))"

        // When Chrome and a client that accepts no negotiated format ask for it @best
        let best = try [Self.chrome, Self.plain].map { try stack.get(base + "@best", headers: ["Accept": $0]) }

        // Then each answer is the smallest of its class's candidates, each asked for by name
        // (each format at its own quality: the class's lossy format and the lossless PNG)
        let candidates: [[String]] = [["avif", "png"], ["jpg", "png"]]
        for (answer, names) in zip(best, candidates) {
            #expect(answer.status == 200 && answer.headers["vary"] == "Accept")
            let sizes = try names.map { name in
                let named = try stack.get(base + "@\(name)")
                // a JPEG cannot carry the logo's transparency: it is no candidate for it
                return source == "/logo.png" && name == "jpg" ? Int.max : named.body.count
            }
            let smallest = names[sizes.firstIndex(of: sizes.min()!)!]
            #expect(answer.body.count == sizes.min()!, "\(source): \(answer.body.count) bytes against \(zip(names, sizes).map { "\($0) \($1)" })")
            #expect(answer.headers["content-type"] == "image/" + (smallest == "jpg" ? "jpeg" : smallest))
        }

        // and nginx, with thumbd gone, gives each class the same file, its type and Vary
        stack.stopThumbd()
        for (accept, miss) in zip([Self.chrome, Self.plain], best) {
            let hit = try stack.get(base + "@best", headers: ["Accept": accept])
            #expect(hit.status == 200 && hit.body == miss.body, "\(accept)")
            #expect(hit.headers["content-type"] == miss.headers["content-type"] && hit.headers["vary"] == "Accept")
        }
    }

    @Test func aBase64SourcesBestIsTheSameFileAndNginxServesIt() throws {
        // Given the same thumbnail with a plain source @best and a base64 source .best
        let origin = try TestOrigin()
        origin.serve("/logo.png", .image(PalettePNGTests.logo))
        let stack = try TestStack(environment: Self.negotiating)
        defer { stack.shutdown() }
        let url = origin.url("/logo.png")
        let plain = "/insecure/rs:fit:300:200/plain/\(url)@best"
        let encoded = "/insecure/rs:fit:300:200/\(Base64URL.encode(Array(url.utf8))).best"

        // When Chrome asks for both
        let first = try stack.get(plain, headers: ["Accept": Self.chrome])
        let second = try stack.get(encoded, headers: ["Accept": Self.chrome])

        // Then both are the one best file, which nginx serves alone afterwards for either spelling,
        // with its type and Vary
        #expect(first.status == 200 && second.body == first.body)
        stack.stopThumbd()
        for path in [plain, encoded] {
            let hit = try stack.get(path, headers: ["Accept": Self.chrome])
            #expect(hit.status == 200 && hit.body == first.body, "\(path)")
            #expect(hit.headers["content-type"] == first.headers["content-type"] && hit.headers["vary"] == "Accept", "\(path)")
        }
        #expect(origin.requestCount("/logo.png") == 1)
    }

    @Test func byDefaultAURLWithoutAFormatIsBestAndNginxFindsIt() throws {
        // Given BEST_FORMAT_BY_DEFAULT, and the site written for it
        let origin = try TestOrigin()
        origin.serve("/colourful.png", .image(ChromaTests.colourful))
        let stack = try TestStack(environment: Self.negotiating.merging(["THUMBD_BEST_FORMAT_BY_DEFAULT": "true"]) { $1 },
                                  siteArguments: ["--best-by-default"])
        defer { stack.shutdown() }
        let path = "/insecure/rs:fit:300:200/plain/\(origin.url("/colourful.png"))"

        // When Chrome asks for a URL that names no format, then for the same @best
        let miss = try stack.get(path, headers: ["Accept": Self.chrome])
        let named = try stack.get(path + "@best", headers: ["Accept": Self.chrome])

        // Then both are the same best file, which nginx serves alone afterwards
        #expect(miss.status == 200 && miss.body == named.body && miss.headers["vary"] == "Accept")
        stack.stopThumbd()
        let hit = try stack.get(path, headers: ["Accept": Self.chrome])
        #expect(hit.status == 200 && hit.body == miss.body && hit.headers["content-type"] == miss.headers["content-type"])
        #expect(origin.requestCount("/colourful.png") == 1)
    }
}
