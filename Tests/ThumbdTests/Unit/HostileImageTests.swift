import CMagickWand
import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbImaging
@testable import ThumbRequest
@testable import ThumbRuntime

/// Sources made to turn ImageMagick against the server (scripts, file and URL readers, pixel
/// floods, broken files) are refused in-process under thumbd's policy, deploy/policy.xml, while
/// the formats thumbd serves still decode. ContentSniffer stops most of these before ImageMagick;
/// these tests take it away and show the policy holds on its own.
@Suite(.computing, .timeLimit(.minutes(5)))
struct HostileImageTests {
    init() throws {
        TestImages.startImageMagick()
        // With Debian's policy alone a "text:" read aborts the whole test process (an assertion
        // in 6.9.11's DestroyImage): go no further unless thumbd's policy is what ImageMagick uses.
        try #require(MagickEnvironment.policyProblems() == [], "deploy/policy.xml is not in force")
    }

    @Test func thumbdsPolicyAndLimitsAreInForce() {
        // Given ImageMagick started by the tests as thumbd starts it
        // Then its merged policy is thumbd's: no problem found, and the resource ceilings hold
        #expect(MagickEnvironment.policyProblems() == [])
        #expect(GetMagickResourceLimit(WidthResource) == 32768)
        #expect(GetMagickResourceLimit(HeightResource) == 32768)
        #expect(GetMagickResourceLimit(AreaResource) == 128_000_000)
        #expect(GetMagickResourceLimit(DiskResource) == 0)
        #expect(GetMagickResourceLimit(ListLengthResource) == 1000)
        #expect(GetMagickResourceLimit(ThreadResource) == 1)
        #expect(GetMagickResourceLimit(TimeResource) == MagickEnvironment.unlimited)
    }

    static let mvg = """
        push graphic-context
        viewbox 0 0 64 64
        image over 0,0 0,0 'text:/etc/passwd'
        pop graphic-context

        """
    static let postScript = """
        %!PS-Adobe-3.0
        %%BoundingBox: 0 0 64 64
        (/etc/passwd) (r) file 100 string readstring pop showpage

        """

    /// (what, coder prefix the reader is given, payload). An empty prefix leaves ImageMagick to
    /// recognise the payload by its bytes, as it would a fetched source.
    static let hostile: [(String, String, String)] = [
        ("MVG named", "mvg:", mvg),
        ("MVG by content", "", mvg),
        ("SVG with an external image", "", svg(href: "text:/etc/passwd")),
        ("SVG named", "svg:", svg(href: "text:/etc/passwd")),
        ("ImageMagick's own SVG renderer", "msvg:", svg(href: "text:/etc/passwd")),
        ("a text: read", "text:", "root:x:0:0:root:/root:/bin/bash\n"),
        ("a txt: read", "txt:", "root:x:0:0:root:/root:/bin/bash\n"),
        ("PostScript by content", "", postScript),
        ("EPS named", "eps:", postScript),
        ("PDF by content", "", "%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"),
        ("MSL", "msl:", #"<?xml version="1.0"?><image><read filename="/etc/passwd"/></image>"#),
        ("a label: read", "label:", "@/etc/passwd"),
    ]

    @Test(arguments: hostile)
    func theReaderRefuses(what: String, prefix: String, payload: String) {
        // Given a wand told the coder, as an attacker who controlled the filename would
        let image = MagickImage()
        if !prefix.isEmpty { MagickSetFilename(image.wand, prefix) }

        // When it reads the payload
        let refusal = Self.unprocessable { () throws(ImagingFailure) in try image.read(Array(payload.utf8)) }

        // Then the read fails and nothing was decoded
        #expect(refusal != nil, "\(what) was read")
        #expect(image.frameCount == 0)
    }

    @Test func anSVGNeverFetchesItsExternalImage() throws {
        // Given an origin, and an SVG whose image is on it
        let origin = try TestOrigin()
        defer { origin.stop() }
        origin.serve("/leak.png", .image(TestImages.draw("xc:red", width: 4, height: 4, format: .png)))
        let svg = Array(Self.svg(href: origin.url("/leak.png")).utf8)

        // When the renderer is given it (as if the sniffer had let it through)
        let refusal = Self.unprocessable { () throws(ImagingFailure) in
            _ = try Renderer(configuration: .unhurried).render(svg, sourceFormat: .png, options: Self.small(.png))
        }

        // Then it is refused, and the origin never heard of it
        #expect(refusal?.contains("security policy") == true, "\(refusal ?? "rendered")")
        #expect(origin.totalRequests == 0)
    }

    @Test func theRendererRefusesPostScriptAtThePing() {
        let refusal = Self.unprocessable { () throws(ImagingFailure) in
            _ = try Renderer(configuration: .unhurried).render(Array(Self.postScript.utf8), sourceFormat: .jpeg,
                                                            options: Self.small(.png))
        }
        #expect(refusal?.hasPrefix("cannot read image header") == true, "\(refusal ?? "rendered")")
    }

    @Test(arguments: [ImageFormat.jpeg, .png, .gif, .webp, .avif])
    func theServedFormatsStillDecode(format: ImageFormat) throws {
        // Given a 160x120 picture in the format
        let source = TestImages.draw("gradient:red-blue", width: 160, height: 120, format: format)
        #expect(ContentSniffer.format(of: source)?.asOutput == format)

        // When it is read, and rendered to a 40x30 PNG
        let image = MagickImage()
        try image.read(source)
        let rendered = try Renderer(configuration: .unhurried)
            .render(source, sourceFormat: try #require(ContentSniffer.format(of: source)), options: Self.small(.png))

        // Then both worked
        #expect(image.width == 160 && image.height == 120)
        #expect(rendered.width == 40 && rendered.height == 30)
        #expect(try ImageProbe(rendered.bytes).format == "PNG")
    }

    /// Headers that claim far more pixels than their few bytes hold: refused from the header,
    /// before a pixel is decoded. (what, bytes, what the refusal says)
    static let floods: [(String, [UInt8], String)] = [
        ("PNG of 20000x20000", png(width: 20000, height: 20000), "image is 20000x20000, over the limit of 50000000"),
        ("GIF of 30000x30000", gif(width: 30000, height: 30000), "image is 30000x30000, over the limit of 50000000"),
        // Wider than ImageMagick's width limit: libpng and the GIF reader refuse at the header.
        ("PNG of 50000x50000", png(width: 50000, height: 50000), "cannot read image header"),
        ("GIF of 65535x65535", gif(width: 65535, height: 65535), "cannot read image header"),
    ]

    @Test(arguments: floods)
    func aPixelFloodIsRefusedFromItsHeader(what: String, source: [UInt8], message: String) {
        // Given a source of under 100 bytes whose header claims a huge image
        #expect(source.count < 100)

        // When it is rendered
        let format = ContentSniffer.format(of: source)!
        let refusal = Self.unprocessable { () throws(ImagingFailure) in
            _ = try Renderer(configuration: .unhurried).render(source, sourceFormat: format, options: Self.small(.jpeg))
        }

        // Then it is unprocessable, said so, and the refusal is the header's: the one the header
        // alone (pinged, not a pixel decoded) gives
        #expect(refusal?.hasPrefix(message) == true, "\(what): \(refusal ?? "rendered")")
        #expect(refusal == Self.headerRefusal(source, format: format, maxFrames: 1), "\(what)")
    }

    /// Files whose first frame is small and a later one huge, or whose frames add up: every
    /// frame's header is read before any is decoded. (what, bytes, what the refusal says)
    static let frameFloods: [(String, [UInt8], String)] = [
        ("a GIF of a 1x1 frame, then one of 11000x11000",
         PixelFloods.gif(screen: (1, 1), frames: [(1, 1), (11000, 11000)]), "frame 2 of 2 is 11000x11000, over the limit of 50000000"),
        ("a GIF of a 11000x11000 frame, then one of 1x1",
         PixelFloods.gif(screen: (1, 1), frames: [(11000, 11000), (1, 1)]), "frame 1 of 2 is 11000x11000, over the limit of 50000000"),
        ("a TIFF of a 1x1 page, then one of 11000x11000",
         PixelFloods.tiff(pages: [(1, 1), (11000, 11000)]), "frame 2 of 2 is 11000x11000, over the limit of 50000000"),
        ("a GIF of a 1x1 frame, then four of 4000x4000, as an animation",
         PixelFloods.gif(screen: (1, 1), frames: [(1, 1)] + Array(repeating: (4000, 4000), count: 4)),
         "animation of 5 frames is 64000001 pixels, over the limit of 50000000"),
    ]

    @Test(arguments: frameFloods, [1, 10])
    func everyFrameIsCheckedBeforeAnyIsDecoded(flood: (String, [UInt8], String), maxFrames: Int) throws {
        let (what, source, message) = flood
        // Given a source of a few hundred bytes, rendered as a still and as an animation
        #expect(source.count < 400)
        var configuration = Renderer.Configuration.unhurried
        configuration.maxAnimationFrames = maxFrames
        // TIFF is decoded only where an operator names it; the check must hold there too.
        configuration.sourceFormats = Set(SourceFormat.allCases)
        let format = try #require(ContentSniffer.format(of: source))

        // When it is rendered
        let refusal = Self.unprocessable { () throws(ImagingFailure) in
            _ = try Renderer(configuration: configuration).render(source, sourceFormat: format, options: Self.small(.webp))
        }

        // Then it is refused from its headers, which the header alone (pinged) gives: each frame
        // is checked for a still too, the sum of them where animations are decoded (a still
        // decodes its small first frame alone)
        if message.hasPrefix("animation") && maxFrames == 1 {
            #expect(refusal == nil, "\(what): \(refusal ?? "rendered")")
        } else {
            #expect(refusal?.hasPrefix(message) == true, "\(what): \(refusal ?? "rendered")")
        }
        #expect(refusal == Self.headerRefusal(source, format: format, maxFrames: maxFrames), "\(what)")
    }

    @Test func rawCountsEveryFrameOfAnAnimationTogether() throws {
        // Given an animated GIF of ten 100x100 frames, each within a limit of 50000 pixels, all of
        // them (100000) over it, animations off as by default
        let source = GoldenImages.animation(colors: ["red", "green", "blue", "white", "black", "red", "green", "blue",
                                                     "white", "black"], width: 100, height: 100, delay: 10)
        #expect(GoldenImages.frames(of: source).count == 10)
        var configuration = Renderer.Configuration.unhurried
        configuration.maxSourcePixels = 50000
        var options = ProcessingOptions()
        options.raw = true

        // When it is asked for raw, which answers the source itself, every frame
        let refusal = Self.unprocessable { () throws(ImagingFailure) in
            _ = try Renderer(configuration: configuration).passThrough(source, sourceFormat: .gif, options: options)
        }

        // Then it is refused for the frames' total, and one frame alone passes
        #expect(refusal == "animation of 10 frames is 100000 pixels, over the limit of 50000")
        let still = GoldenImages.animation(colors: ["red"], width: 100, height: 100, delay: 10)
        #expect(throws: Never.self) {
            try Renderer(configuration: configuration).passThrough(still, sourceFormat: .gif, options: options)
        }
    }

    @Test func anEmptySourceIsUnprocessable() {
        let refusal = Self.unprocessable { () throws(ImagingFailure) in
            _ = try Renderer(configuration: .unhurried).render([], sourceFormat: .jpeg, options: Self.small(.jpeg))
        }
        #expect(refusal != nil)
    }

    @Test(arguments: [ImageFormat.jpeg, .png, .gif, .webp])
    func aTruncatedSourceIsUnprocessable(format: ImageFormat) {
        // Given a 400x300 picture cut after its first half, and one cut inside its header
        let whole = TestImages.draw("gradient:red-blue", width: 400, height: 300, format: format)
        for cut in [whole.count / 2, 40] {
            // When it is rendered
            let refusal = Self.unprocessable { () throws(ImagingFailure) in
                _ = try Renderer(configuration: .unhurried).render(Array(whole.prefix(cut)), sourceFormat: SourceFormat(rawValue: format.rawValue)!,
                                                                options: Self.small(.png))
            }
            // Then it is unprocessable rather than a grey-filled thumbnail
            #expect(refusal != nil, "\(format) cut to \(cut) of \(whole.count) bytes was rendered")
        }
    }

    /// Sources a decoder still half-reads: (what, bytes, format, what the refusal says). libjpeg
    /// fills corrupt scans with grey and says so only in warnings; libpng passes a failed CRC of
    /// an ancillary chunk as a warning; ImageMagick returns pixels whose colours the palette
    /// lacks. Two more are refused outright, before any of this, and stay so.
    static let damaged: [(String, [UInt8], SourceFormat, String)] = [
        ("a JPEG with corrupt scan data",
         BrokenImages.jpeg(TestImages.jpeg(width: 400, height: 300), corruptingScan: 0),
         .jpeg, "image is damaged: Corrupt JPEG data"),
        // Shrunk at 1/8 from its DC scans, where the damage is; the fallback reads it whole and fails it too.
        ("a progressive JPEG with a corrupt DC scan",
         BrokenImages.jpeg(ProgressiveJPEGTests.photo(sampling: "2x2", progressive: true), corruptingScan: 0),
         .jpeg, "image is damaged: Corrupt JPEG data"),
        ("a PNG whose text chunk fails its CRC", PNGChunks.rewriting("tEXt", in: png, validCRC: false),
         .png, "image is damaged: tEXt: CRC error"),
        ("a palette PNG whose pixels name colours its palette lacks",
         PNGChunks.rewriting("PLTE", in: GoldenImages.quadrants(width: 40, height: 40, format: .png)) {
             $0 = [255, 0, 0]  // one colour of the four
         },
         .png, "image is damaged: invalid colormap index"),
        ("a PNG whose IHDR names an unknown compression method", PNGChunks.rewriting("IHDR", in: png) { $0[10] = 1 },
         .png, "cannot read image header"),
        ("a PNG whose pixel data fails its CRC", PNGChunks.rewriting("IDAT", in: png, validCRC: false),
         .png, "cannot decode image"),
    ]
    static let png = TestImages.draw("gradient:red-blue", width: 400, height: 300, format: .png)

    @Test(arguments: damaged)
    func aSourceItsDecoderCallsBrokenIsUnprocessable(what: String, source: [UInt8], format: SourceFormat,
                                                      reason: String) {
        // Given a damaged source, still known by its first bytes
        #expect(ContentSniffer.format(of: source) == format)

        // When it is rendered
        let refusal = Self.unprocessable { () throws(ImagingFailure) in
            _ = try Renderer(configuration: .unhurried).render(source, sourceFormat: format, options: Self.small(.png))
        }

        // Then it is unprocessable, and says why, rather than a thumbnail of grey blocks or wrong colours
        #expect(refusal?.hasPrefix(reason) == true, "\(what): \(refusal ?? "rendered")")
    }

    @Test func aJPEGWithPaddingBeforeItsEndStillRenders() throws {
        // Given a JPEG with padding before its end marker, which libjpeg calls corrupt data and skips
        let source = BrokenImages.jpegPaddedBeforeItsEnd(TestImages.jpeg(width: 400, height: 300))
        let image = MagickImage()
        try image.read(source)
        #expect(image.readComplaints.contains { $0.message.contains("extraneous bytes before marker") })

        // When it is rendered
        let rendered = try Renderer(configuration: .unhurried)
            .render(source, sourceFormat: .jpeg, options: Self.small(.png))

        // Then it is a thumbnail like any other
        #expect((rendered.width, rendered.height) == (40, 30))
    }

    // MARK: - Helpers

    /// The message of the 422 error `body` threw (the source unprocessable, undecodable or over a
    /// limit); nil when it did not throw. Any other error is a test failure.
    static func unprocessable(_ body: () throws(ImagingFailure) -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            switch error {
            case .unprocessable(let message), .undecodable(let message), .overLimit(let message): return message
            default:
                Issue.record("expected a 422, got \(error)")
                return "\(error)"
            }
        }
    }

    /// Options for a 40x30 (at most) thumbnail in `format`.
    /// What reading the headers alone (a ping: no pixel decoded) says of `source` with the default
    /// pixel limit; nil if they pass.
    static func headerRefusal(_ source: [UInt8], format: SourceFormat, maxFrames: Int) -> String? {
        unprocessable { () throws(ImagingFailure) in
            _ = try Renderer.header(of: source, format: format, maxPixels: Renderer.Configuration().maxSourcePixels,
                                    maxFrames: maxFrames)
        }
    }

    static func small(_ format: ImageFormat) -> ProcessingOptions {
        var options = ProcessingOptions()
        options.width = 40
        options.height = 30
        options.format = format
        return options
    }

    static func svg(href: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="64" height="64">
          <image xlink:href="\(href)" x="0" y="0" width="64" height="64"/>
        </svg>

        """
    }

    /// A PNG whose IHDR claims `width` x `height` (8-bit RGB), with valid CRCs and an IDAT that
    /// holds an empty zlib stream.
    static func png(width: UInt32, height: UInt32) -> [UInt8] {
        let header = PNGChunks.bigEndian(width) + PNGChunks.bigEndian(height) + [8, 2, 0, 0, 0]
        let emptyZlibStream: [UInt8] = [0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]
        return PNGChunks.signature
            + PNGChunks.chunk("IHDR", header) + PNGChunks.chunk("IDAT", emptyZlibStream) + PNGChunks.chunk("IEND", [])
    }

    /// A GIF whose screen and only frame claim `width` x `height`.
    static func gif(width: UInt16, height: UInt16) -> [UInt8] {
        PixelFloods.gif(screen: (width, height), frames: [(width, height)])
    }
}
