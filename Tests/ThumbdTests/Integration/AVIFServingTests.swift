import Foundation
import Testing

/// AVIF through real nginx and thumbd: the URL's quality decides the file, which nginx then
/// serves with its type.
@Suite(.blocking, .timeLimit(.minutes(3)))
struct AVIFServingTests {
    @Test func eachQualityIsItsOwnFileOfItsOwnSize() throws {
        // Given a picture with edges and colour on an origin, and signed URLs
        let origin = try TestOrigin()
        origin.serve("/colourful.png", .image(ChromaTests.colourful))
        let stack = try TestStack(environment: TestStack.signing)
        defer { stack.shutdown() }
        let paths = [30, 90].map { "/insecure/rs:fill:300:200/q:\($0)/plain/\(origin.url("/colourful.png"))@avif" }

        // When it is asked for as AVIF at q30 and q90
        let misses = try paths.map { try stack.get($0) }

        // Then both are AVIF, the q90 one larger, each decoded by avifdec
        for miss in misses {
            #expect(miss.status == 200 && miss.headers["content-type"] == "image/avif")
            #expect(try AVIFTests.referenceDecode(miss.body).info.contains("Resolution     : 300x200"))
        }
        #expect(misses[0].body.count < misses[1].body.count, "\(misses.map(\.body.count))")
        // and nginx serves each as stored, with thumbd gone
        stack.stopThumbd()
        for (path, miss) in zip(paths, misses) {
            let hit = try stack.get(path)
            #expect(hit.status == 200 && hit.body == miss.body && hit.headers["content-type"] == "image/avif")
        }
    }
}
