import Testing

/// Metadata is stripped by default; kept whole with `sm:0`; only the copyright with `kcr`.
@Suite(.timeLimit(.minutes(2)))
struct MetadataTests {
    static let source = GoldenImages.withCopyright(GoldenImages.quadrants(width: 200, height: 100, format: .jpeg),
                                                   "Photo by Someone")

    @Test func theSourceCarriesItsCopyright() throws {
        #expect(try ImageProbe(Self.source).property("exif:Copyright") == "Photo by Someone")
    }

    @Test func byDefaultEverythingIsStripped() throws {
        let image = try RenderGoldenTests.render(Self.source, "w:50", ext: "jpg")
        #expect(image.property("exif:Copyright") == nil)
        #expect(image.property("comment") == nil)
    }

    @Test func keepCopyrightKeepsOnlyTheCopyright() throws {
        let image = try RenderGoldenTests.render(Self.source, "w:50/kcr:1", ext: "jpg")
        #expect(image.property("comment") == "Photo by Someone")
        #expect(image.property("exif:Orientation") == nil)
    }

    @Test func stripMetadataOffKeepsTheEXIF() throws {
        let image = try RenderGoldenTests.render(Self.source, "w:50/sm:0", ext: "jpg")
        #expect(image.property("exif:Copyright") == "Photo by Someone")
    }
}
