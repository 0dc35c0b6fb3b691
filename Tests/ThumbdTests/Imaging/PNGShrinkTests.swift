import CMagickWand
import Testing
import ThumbdTestSupport
@testable import ThumbImaging
@testable import ThumbRequest
@testable import ThumbRuntime

/// A PNG averaged in squares while libpng decodes it gives the thumbnail a full decode gives,
/// whatever its pixel layout; what it cannot take (interlacing, damage) ImageMagick reads whole.
@Suite(.computing, .timeLimit(.minutes(5)))
struct PNGShrinkTests {
    /// 1200x900 of detail (and of alpha where the layout has it) in every layout libpng writes.
    static func picture(_ layout: ImageType, depth: Int = 8, interlaced: Bool = false) -> [UInt8] {
        var rgba = [UInt8](repeating: 0, count: 1200 * 900 * 4)
        for y in 0..<900 {
            for x in 0..<1200 {
                let at = (y * 1200 + x) * 4
                rgba[at] = UInt8(truncatingIfNeeded: x * y / 97)
                rgba[at + 1] = UInt8(truncatingIfNeeded: (x / 3) ^ (y / 5))
                rgba[at + 2] = UInt8(truncatingIfNeeded: x + 2 * y)
                rgba[at + 3] = UInt8(truncatingIfNeeded: 128 + (x / 40) * 8)
            }
        }
        return GoldenImages.render(width: 1200, height: 900, background: "xc:white", format: .png) { wand in
            MagickSetImageAlphaChannel(wand, ActivateAlphaChannel)
            precondition(MagickImportImagePixels(wand, 0, 0, 1200, 900, "RGBA", CharPixel, rgba) == MagickTrue)
            MagickSetImageType(wand, layout)
            MagickSetImageDepth(wand, depth)
            if interlaced { MagickSetInterlaceScheme(wand, PNGInterlace) }
        }
    }

    static func render(_ source: [UInt8], shrinkOnLoad: Bool) throws -> ImageProbe {
        var configuration = Renderer.Configuration.unhurried
        configuration.shrinkOnLoad = shrinkOnLoad
        var options = ProcessingOptions()
        options.resizingType = .fill
        options.width = 200
        options.height = 120
        options.format = .png
        return try ImageProbe(try Renderer(configuration: configuration).render(source, sourceFormat: .png, options: options).bytes)
    }

    static func readsShrunk(_ source: [UInt8]) throws -> Bool {
        let header = MagickImage()
        try header.ping(source)
        return MagickImage().readPNG(source, header: header, scaledFor: (200, 150))
    }

    @Test(arguments: [(TrueColorType, 8), (TrueColorType, 16), (TrueColorMatteType, 8), (GrayscaleType, 8),
                      (GrayscaleMatteType, 16), (PaletteType, 8), (PaletteMatteType, 8)])
    func everyLayoutShrinksToAFullDecodesThumbnail(layout: ImageType, depth: Int) throws {
        let source = Self.picture(layout, depth: depth)
        #expect(try Self.readsShrunk(source))

        let shrunk = try Self.render(source, shrinkOnLoad: true)
        let full = try Self.render(source, shrinkOnLoad: false)

        #expect((shrunk.width, shrunk.height) == (200, 120) && (full.width, full.height) == (200, 120))
        var difference = 0, samples = 0
        for y in stride(from: 1, to: 119, by: 3) {
            for x in stride(from: 1, to: 199, by: 3) {
                let a = shrunk.color(x: x, y: y), b = full.color(x: x, y: y)
                difference += abs(a.red - b.red) + abs(a.green - b.green) + abs(a.blue - b.blue)
                difference += Int((abs(shrunk.alpha(x: x, y: y) - full.alpha(x: x, y: y)) * 255).rounded())
                samples += 4
            }
        }
        #expect(Double(difference) / Double(samples) < 3, "mean difference per channel")
    }

    @Test func transparentPixelsLendTheAverageNoColour() throws {
        // Given columns of opaque red and of transparent green, one pixel wide each
        var rgba = [UInt8](repeating: 0, count: 1200 * 900 * 4)
        for pixel in 0..<(1200 * 900) {
            rgba[4 * pixel..<4 * pixel + 4] = pixel % 2 == 0 ? [255, 0, 0, 255] : [0, 255, 0, 0]
        }
        let source = GoldenImages.render(width: 1200, height: 900, background: "xc:red", format: .png) { wand in
            MagickSetImageAlphaChannel(wand, ActivateAlphaChannel)
            precondition(MagickImportImagePixels(wand, 0, 0, 1200, 900, "RGBA", CharPixel, rgba) == MagickTrue)
        }

        // When it is shrunk on load, then the thumbnail is half-transparent red, not brownish
        #expect(try Self.readsShrunk(source))
        let thumbnail = try Self.render(source, shrinkOnLoad: true)
        let color = thumbnail.color(x: 100, y: 60)
        #expect(color.red > 240 && color.green < 15, "\(color)")
        #expect(abs(thumbnail.alpha(x: 100, y: 60) - 0.5) < 0.05)
    }

    @Test func anInterlacedOrDamagedPNGIsReadWhole() throws {
        let interlaced = Self.picture(TrueColorType, interlaced: true)
        #expect(try !Self.readsShrunk(interlaced))
        #expect(try Self.render(interlaced, shrinkOnLoad: true).width == 200)

        let whole = Self.picture(TrueColorType)
        let cut = Array(whole.prefix(whole.count * 2 / 3))
        #expect(try !Self.readsShrunk(cut))
        // ImageMagick, reading it whole, says what is wrong, as it did before any shrinking
        #expect(throws: ImagingFailure.self) { try Self.render(cut, shrinkOnLoad: true) }
    }
}
