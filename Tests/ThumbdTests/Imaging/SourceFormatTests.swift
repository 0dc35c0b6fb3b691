import CMagickWand
import Testing
import ThumbdTestSupport
@testable import ThumbImaging
@testable import ThumbRequest
@testable import ThumbRuntime

/// Formats thumbd reads but does not write: recognised by their first bytes, rendered, and
/// written as JPEG when the URL names no format.
@Suite(.computing, .timeLimit(.minutes(5)))
struct SourceFormatTests {
    /// Draws a 160 x 120 gradient in an ImageMagick coder thumbd has no ImageFormat for.
    static func drawn(_ coder: String) -> [UInt8] {
        _ = TestImages.jpeg(width: 1, height: 1)
        let wand = NewMagickWand()!
        defer { DestroyMagickWand(wand) }
        MagickSetSize(wand, 160, 120)
        precondition(MagickReadImage(wand, "gradient:red-blue") == MagickTrue)
        MagickSetImageFormat(wand, coder)
        var length = 0
        let blob = MagickGetImageBlob(wand, &length)!
        defer { MagickRelinquishMemory(blob) }
        return Array(UnsafeBufferPointer(start: blob, count: length))
    }

    @Test(arguments: [("TIFF", SourceFormat.tiff), ("BMP", .bmp)])
    func readOnlyFormatsRenderToJPEGByDefault(coder: String, format: SourceFormat) throws {
        let source = Self.drawn(coder)
        #expect(ContentSniffer.format(of: source) == format)

        var options = ProcessingOptions()
        options.width = 40
        var configuration = Renderer.Configuration.unhurried
        configuration.sourceFormats = Set(SourceFormat.allCases)
        let rendered = try Renderer(configuration: configuration).render(source, sourceFormat: format, options: options)

        #expect(rendered.format == .jpeg)
        let image = try ImageProbe(rendered.bytes)
        #expect((image.format, image.width, image.height) == ("JPEG", 40, 30))
        #expect(RenderGoldenTests.looks(image, at: (20, 1), like: "red", tolerance: 40))
    }

    @Test(arguments: [("HEIC", SourceFormat.heic), ("TIFF", .tiff)])
    func riskyDecodersRunOnlyWhenNamed(coder: String, format: SourceFormat) throws {
        // Given a real HEIC or TIFF file
        let source = Self.drawn(coder)
        #expect(ContentSniffer.format(of: source) == format)
        var options = ProcessingOptions()
        options.width = 40

        // Then by default it is refused before any decoder sees it
        #expect(throws: ImagingFailure.unprocessable("\(coder) sources are not enabled (SOURCE_FORMATS)")) {
            try Renderer(configuration: .unhurried).render(source, sourceFormat: format, options: options)
        }
        // and rendered once the operator names its format
        var configuration = Renderer.Configuration.unhurried
        configuration.sourceFormats.insert(format)
        let rendered = try Renderer(configuration: configuration).render(source, sourceFormat: format, options: options)
        #expect((rendered.format, rendered.width, rendered.height) == (.jpeg, 40, 30))
    }

    @Test func heicIsRecognisedByItsBrand() {
        let header: [UInt8] = [0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)
        #expect(ContentSniffer.format(of: header) == .heic)
        #expect(PreferredFormats.standard.format(for: .heic, animated: false, transparent: false) == .jpeg)
    }

    @Test func textStartingWithBMIsNotABitmap() {
        #expect(ContentSniffer.format(of: Array("BM is not an image, just text here".utf8)) == nil)
    }
}
