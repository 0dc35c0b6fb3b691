import Testing

/// Metadata is stripped by default but for the copyright (imgproxy's KEEP_COPYRIGHT defaults to
/// true); kept whole with `sm:0`; the copyright goes too with `kcr:0`.
@Suite(.timeLimit(.minutes(2)))
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
}
