import CMagickWand
import Foundation
import Synchronization
import Testing
import ThumbdTestSupport
@testable import ThumbImaging
@testable import ThumbRequest
@testable import ThumbRuntime

/// PNG_QUANTIZE: a PNG written with a palette of at most PNG_QUANTIZATION_COLORS colours, its
/// transparency kept, in a fraction of the truecolour bytes.
@Suite(.computing, .timeLimit(.minutes(5)))
struct PalettePNGTests {
    /// A logo: a rounded blue card with white strokes, a yellow disc and a dark rule, on transparency.
    static let logo: [UInt8] = {
        TestImages.startImageMagick()
        let wand = NewMagickWand()!
        defer { DestroyMagickWand(wand) }
        MagickSetSize(wand, 1200, 800)
        precondition(MagickReadImage(wand, "xc:none") == MagickTrue)
        let draw = NewDrawingWand()!
        defer { DestroyDrawingWand(draw) }
        let colour = NewPixelWand()!
        defer { DestroyPixelWand(colour) }
        func fill(_ name: String) {
            PixelSetColor(colour, name)
            DrawSetFillColor(draw, colour)
        }
        fill("#1f6feb")
        DrawRoundRectangle(draw, 100, 100, 1100, 700, 80, 80)
        fill("#f0b429")
        DrawCircle(draw, 250, 250, 330, 250)
        fill("#333333")
        DrawRectangle(draw, 150, 640, 1050, 660)
        // letters' worth of white strokes and a triangle (the test policy reads no fonts)
        fill("white")
        for left in stride(from: 420.0, to: 1000, by: 110) { DrawRectangle(draw, left, 300, left + 40, 520) }
        DrawPolygon(draw, 3, [PointInfo(x: 700, y: 560), PointInfo(x: 1000, y: 600), PointInfo(x: 720, y: 620)])
        precondition(MagickDrawImage(wand, draw) == MagickTrue)
        MagickSetImageFormat(wand, "PNG")
        var length = 0
        let blob = MagickGetImageBlob(wand, &length)!
        defer { MagickRelinquishMemory(blob) }
        return Array(UnsafeBufferPointer(start: blob, count: length))
    }()

    static func render(_ source: [UInt8], quantize: Bool, colors: Int = 256) throws -> [UInt8] {
        var options = ProcessingOptions()
        (options.width, options.height, options.resizingType, options.format) = (300, 200, .fit, .png)
        (options.pngQuantize, options.pngQuantizationColors) = (quantize, colors)
        return try Renderer(configuration: .unhurried).render(source, sourceFormat: .png, options: options).bytes
    }

    @Test func aFlatGraphicWithAlphaBecomesAPaletteInHalfTheBytes() throws {
        // Given a logo on transparency, rendered truecolour and quantised
        let truecolour = try Self.render(Self.logo, quantize: false)
        let palette = try Self.render(Self.logo, quantize: true)

        // Then the quantised one is a palette PNG, its transparent entries in tRNS, in at most half
        // the bytes (1,637 against 4,501 here; SSIMULACRA2 95.8 with alpha, bench/QUALITY.md)
        let chunks = try PNGPalette(palette)
        #expect(chunks.colourType == 3 && chunks.bitDepth == 8)
        #expect(chunks.paletteEntries <= 256 && chunks.paletteEntries > 16)
        #expect(chunks.transparencyEntries > 0)
        #expect(try PNGPalette(truecolour).colourType == 6)
        #expect(2 * palette.count <= truecolour.count, "\(palette.count) bytes against \(truecolour.count)")

        // and it shows the same picture: transparent where the logo is, the card's blue on it
        let (probe, reference) = (try ImageProbe(palette), try ImageProbe(truecolour))
        #expect(probe.alpha(x: 2, y: 2) == 0)
        #expect(probe.alpha(x: 150, y: 60) == 1)
        #expect(try FilterTests.psnr(truecolour, palette) > 30)
        #expect(reference.alpha(x: 2, y: 2) == 0)
    }

    @Test func fewerColoursTakeFewerBitsAnIndex() throws {
        // When the palette may hold 16 colours, then it holds at most 16, written 4 bits an index
        let chunks = try PNGPalette(try Self.render(Self.logo, quantize: true, colors: 16))
        #expect(chunks.colourType == 3 && chunks.bitDepth == 4)
        #expect(chunks.paletteEntries <= 16)
    }

    @Test func aResultOverThePixelBudgetIsRefusedBeforeItIsQuantised() throws {
        // Given a picture one row over the pixels an encoder outside ImageMagick takes
        TestImages.startImageMagick()
        let image = MagickImage()
        MagickSetSize(image.wand, 4000, MagickImage.maxEncoderPixels / 4000 + 1)
        #expect(MagickReadImage(image.wand, "xc:red") == MagickTrue)

        // Then quantising it is refused, saying why, as a limit and not a failure
        #expect(throws: ImagingFailure.overLimit("a palette PNG of 4000x4001 is over the limit of 16000000 pixels a palette PNG encode takes")) {
            try image.encodePalettePNG(colors: 256)
        }
    }

    @Test func aPhotoIsQuantisedToo() throws {
        // Given a photo-like gradient, then it is a palette PNG too, as imgproxy writes it
        let source = TestImages.draw("radial-gradient:#f80-#028", width: 600, height: 400, format: .png)
        let chunks = try PNGPalette(try Self.render(source, quantize: true))
        #expect(chunks.colourType == 3)
        #expect(chunks.transparencyEntries == 0)
    }

    @Test func quantisingLeavesOpenMPATeamOfOneOnTheRendersThread() throws {
        // Given a render thread of thumbd's own that has not quantised yet, where OpenMP, which
        // libimagequant runs under, would start a team as wide as the machine
        let process = try #require(dlopen(nil, RTLD_NOW))
        defer { dlclose(process) }
        let lookup = try #require(dlsym(process, "omp_get_max_threads"), "libgomp is loaded")
        let maxThreads = unsafeBitCast(lookup, to: (@convention(c) () -> Int32).self)
        let pool = BlockingPool(role: .render, threads: 1, queueLimit: 1)
        defer { pool.shutdown() }
        let done = DispatchSemaphore(value: 0)
        let teams = Mutex<(before: Int32, after: Int32, rendered: Result<[UInt8], any Error>)?>(nil)

        // When it renders a quantised PNG
        #expect(pool.submit {
            let before = maxThreads()
            let rendered = Result { try Self.render(Self.logo, quantize: true) }
            teams.withLock { $0 = (before, maxThreads(), rendered) }
            done.signal()
        })
        #expect(done.wait(timeout: .now() + 60) == .success, "the quantised render on the pool's thread")

        // Then OpenMP's team on that thread is the thread alone (the test says nothing on one CPU)
        let (before, after, rendered) = try #require(teams.withLock { $0 })
        #expect(try PNGPalette(rendered.get()).colourType == 3)
        #expect(after == 1, "a team of \(after) after the render, \(before) before it")
    }
}

/// What a PNG's header and palette chunks say.
struct PNGPalette {
    let colourType: Int
    let bitDepth: Int
    let paletteEntries: Int
    let transparencyEntries: Int

    init(_ png: [UInt8]) throws {
        guard png.starts(with: PNGChunks.signature), let header = PNGChunks.data(of: "IHDR", in: png), header.count == 13 else {
            throw StackError("not a PNG")
        }
        (bitDepth, colourType) = (Int(header[header.startIndex + 8]), Int(header[header.startIndex + 9]))
        paletteEntries = (PNGChunks.data(of: "PLTE", in: png)?.count ?? 0) / 3
        transparencyEntries = PNGChunks.data(of: "tRNS", in: png)?.count ?? 0
    }
}
