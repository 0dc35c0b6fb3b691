import Testing
import ThumbdTestSupport
@testable import ThumbImaging
@testable import ThumbRequest

/// Metadata is stripped by default but for the copyright (imgproxy's KEEP_COPYRIGHT defaults to
/// true); kept whole with `sm:0`; the copyright goes too with `kcr:0`.
@Suite(.computing, .timeLimit(.minutes(5)))
struct MetadataTests {
    static let source = GoldenImages.withCopyright(GoldenImages.quadrants(width: 200, height: 100, format: .jpeg),
                                                   "Photo by Someone")

    @Test func theSourceCarriesItsCopyright() throws {
        #expect(try ImageProbe(Self.source).property("exif:Copyright") == "Photo by Someone")
    }

    @Test func byDefaultEverythingButTheCopyrightIsStripped() throws {
        let image = try RenderGoldenTests.render(Self.source, "w:50", ext: "jpg")
        #expect(image.property("exif:Copyright") == nil)
        #expect(image.property("exif:Orientation") == nil)
        #expect(image.property("comment") == "Photo by Someone")
    }

    @Test func keepCopyrightOffStripsTheCopyrightToo() throws {
        let image = try RenderGoldenTests.render(Self.source, "w:50/kcr:0", ext: "jpg")
        #expect(image.property("exif:Copyright") == nil)
        #expect(image.property("comment") == nil)
    }

    @Test func stripMetadataOffKeepsTheEXIF() throws {
        let image = try RenderGoldenTests.render(Self.source, "w:50/sm:0", ext: "jpg")
        #expect(image.property("exif:Copyright") == "Photo by Someone")
    }

    @Test func aPNGCarriesNoTimeOfRendering() throws {
        // Given a PNG source (ImageMagick stamps what it writes with tIME and date: texts), its
        // metadata kept
        let source = GoldenImages.quadrants(width: 200, height: 100, format: .png)
        let request = try RequestPathParser(verifier: SignatureVerifier.insecure, baseURL: nil,
                                            options: OptionParser(allowSecurityOptions: true),
policy: Renderer.encodePolicy)
            .parse(rawPath: "/insecure/sm:0/plain/http://h/a@png")

        // When it is rendered
        let rendered = try Renderer(configuration: .unhurried).render(source, sourceFormat: .png, options: request.options)

        // Then no chunk says when: the same request makes the same bytes whenever it is rendered
        let chunks = Self.chunks(rendered.bytes)
        #expect(chunks.first?.type == "IHDR" && chunks.last?.type == "IEND")
        #expect(!chunks.contains { $0.type == "tIME" })
        #expect(!chunks.contains { $0.type == "tEXt" && $0.text.hasPrefix("date:") })
    }

    /// A PNG's chunks: each one's type and, for text, its keyword and text.
    static func chunks(_ png: [UInt8]) -> [(type: String, text: String)] {
        var chunks: [(type: String, text: String)] = []
        var offset = 8
        while offset + 12 <= png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: png[offset + 4..<offset + 8], as: UTF8.self)
            let data = png[offset + 8..<min(png.count, offset + 8 + length)]
            chunks.append((type, String(decoding: data, as: UTF8.self)))
            offset += 12 + length
        }
        return chunks
    }
}
