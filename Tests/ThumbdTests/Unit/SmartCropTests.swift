import CMagickWand
import Testing
import ThumbdTestSupport
@testable import ThumbImaging

/// Smart crop finds the window with the most to look at: on drawn buffers where the answer is
/// known, and once through ImageMagick against what the centre crop would have kept.
@Suite(.computing, .timeLimit(.minutes(5)))
struct SmartCropTests {
    /// A buffer to draw on, grey unless told otherwise.
    struct Canvas {
        typealias Colour = (red: UInt8, green: UInt8, blue: UInt8)
        static let grey: Colour = (128, 128, 128)

        let width: Int
        let height: Int
        var rgb: [UInt8]

        init(width: Int, height: Int, fill: Colour = grey) {
            self.width = width
            self.height = height
            rgb = Array((0..<width * height).map { _ in [fill.red, fill.green, fill.blue] }.joined())
        }

        mutating func paint(_ rect: PixelRect, _ colour: (_ x: Int, _ y: Int) -> Colour) {
            for y in rect.y..<rect.y + rect.height {
                for x in rect.x..<rect.x + rect.width {
                    let c = colour(x, y)
                    rgb.replaceSubrange((y * width + x) * 3..<(y * width + x) * 3 + 3, with: [c.red, c.green, c.blue])
                }
            }
        }

        mutating func fill(_ rect: PixelRect, _ colour: Colour) { paint(rect) { _, _ in colour } }

        /// Black and white squares of `cell` pixels: all edges, no colour.
        mutating func checker(_ rect: PixelRect, cell: Int) {
            paint(rect) { x, y in ((x - rect.x) / cell + (y - rect.y) / cell) % 2 == 0 ? (0, 0, 0) : (255, 255, 255) }
        }

        mutating func disc(centre: (x: Int, y: Int), radius: Int, _ colour: Colour) {
            let side = 2 * radius + 1
            let box = PixelRect(x: centre.x - radius, y: centre.y - radius, width: side, height: side)
            for y in box.y..<box.y + box.height {
                for x in box.x..<box.x + box.width {
                    let (dx, dy) = (x - centre.x, y - centre.y)
                    if dx * dx + dy * dy <= radius * radius { fill(PixelRect(x: x, y: y, width: 1, height: 1), colour) }
                }
            }
        }

        var buffer: PixelBuffer { PixelBuffer(width: width, height: height, rgb: rgb) }
    }

    static func contains(_ window: PixelRect, _ rect: PixelRect) -> Bool {
        window.x <= rect.x && window.y <= rect.y
            && rect.x + rect.width <= window.x + window.width && rect.y + rect.height <= window.y + window.height
    }

    @Test func flatImageCropsAtTheCentre() {
        // Given nothing to look at anywhere
        let image = Canvas(width: 300, height: 200).buffer

        // When a square is cut from it, and a wide strip
        let square = SmartCrop.window(in: image, width: 100, height: 100)
        let strip = SmartCrop.window(in: image, width: 250, height: 60)

        // Then both sit where the centre crop would
        #expect(square == PixelRect(x: 100, y: 50, width: 100, height: 100))
        #expect(strip == PixelRect(x: 25, y: 70, width: 250, height: 60))
    }

    @Test func texturedSquareNearTheRightEdgeIsKept() {
        // Given a flat image with a black-and-white checked square near its right edge
        var canvas = Canvas(width: 300, height: 200)
        let square = PixelRect(x: 250, y: 20, width: 30, height: 30)
        canvas.checker(square, cell: 3)

        // When a 100x100 window is chosen
        let window = SmartCrop.window(in: canvas.buffer, width: 100, height: 100)

        // Then it holds the whole square, which the centre window (100, 50) would miss
        #expect(Self.contains(window, square), "window \(window)")
        #expect(window.width == 100 && window.height == 100)
    }

    @Test func saturatedBlobOutweighsAGreyOneAsSharp() {
        // Given a red disc at the top left and a grey one at the bottom right with a hair more
        // luma (87 to 86.8), so on edges alone the grey one would win
        var canvas = Canvas(width: 300, height: 200, fill: (40, 40, 40))
        canvas.disc(centre: (35, 35), radius: 20, (220, 30, 30))
        canvas.disc(centre: (264, 164), radius: 20, (87, 87, 87))

        // When a 120x120 window is chosen
        let window = SmartCrop.window(in: canvas.buffer, width: 120, height: 120)

        // Then it covers the red disc
        #expect(Self.contains(window, PixelRect(x: 15, y: 15, width: 41, height: 41)), "window \(window)")
    }

    @Test func skinToneOutweighsAnotherColourOfTheSameChroma() {
        // Given a skin-coloured patch at the bottom and, at the top, a blue one with the same
        // chroma (98) and a hair more luma (179 to 178), so on edges and saturation alone the
        // blue one would win
        var canvas = Canvas(width: 200, height: 300, fill: (60, 60, 60))
        let skin = PixelRect(x: 70, y: 240, width: 60, height: 50)
        canvas.fill(skin, (224, 164, 126))
        canvas.fill(PixelRect(x: 70, y: 10, width: 60, height: 50), (133, 193, 231))

        // When a 150x150 window is chosen
        let window = SmartCrop.window(in: canvas.buffer, width: 150, height: 150)

        // Then it covers the skin patch, which the centre window (25, 75) would cut off
        #expect(Self.contains(window, skin), "window \(window)")
    }

    @Test func windowAsLargeAsTheImageIsTheImage() {
        // Given an image with detail off centre
        var canvas = Canvas(width: 120, height: 80)
        canvas.checker(PixelRect(x: 90, y: 50, width: 30, height: 30), cell: 2)

        // When the window is the whole image, or asked larger than it
        let whole = SmartCrop.window(in: canvas.buffer, width: 120, height: 80)
        let larger = SmartCrop.window(in: canvas.buffer, width: 500, height: 500)

        // Then it is the image, at the origin
        #expect(whole == PixelRect(x: 0, y: 0, width: 120, height: 80))
        #expect(larger == PixelRect(x: 0, y: 0, width: 120, height: 80))
    }

    @Test func downscaledPixelsAreTheImageSmaller() throws {
        // Given an 800x400 image, left half red and right half blue
        let bytes = TestImages.halves(width: 800, height: 400, format: .png)  // starts ImageMagick
        let image = MagickImage()
        try image.read(bytes)

        // When copied at most 256 pixels long
        let (buffer, scale) = try image.downscaledPixels(maxSide: 256)

        // Then the copy is 256x128, a point on it is 3.125 times further here, the colours are
        // where they were, and the image itself is untouched
        #expect(buffer.width == 256 && buffer.height == 128)
        #expect(scale == 3.125)
        #expect(Array(buffer.rgb[(64 * 256 + 10) * 3..<(64 * 256 + 10) * 3 + 3]) == [255, 0, 0])
        #expect(Array(buffer.rgb[(64 * 256 + 250) * 3..<(64 * 256 + 250) * 3 + 3]) == [0, 0, 255])
        #expect(image.width == 800 && image.height == 400)
    }

    @Test func smartWindowFindsTheSubjectTheCentreCropMisses() throws {
        // Given an 800x400 plain grey image with a checkerboard subject in its right quarter
        let background = TestImages.draw("xc:gray60", width: 800, height: 400, format: .png)  // starts ImageMagick
        let image = MagickImage()
        try image.read(background)
        let subject = PixelRect(x: 600, y: 0, width: 200, height: 400)
        let pattern = NewMagickWand()!
        defer { DestroyMagickWand(pattern) }
        MagickSetSize(pattern, subject.width, subject.height)
        #expect(MagickReadImage(pattern, "pattern:checkerboard") == MagickTrue)
        #expect(MagickCompositeImage(image.wand, pattern, OverCompositeOp, subject.x, subject.y) == MagickTrue)

        // When a 400x400 window is chosen
        let window = try image.smartWindow(width: 400, height: 400)

        // Then its centre is in the right half and it keeps the whole subject, where the
        // centre crop (x = 200, centre 400) keeps none of it
        let centreCrop = PixelRect(x: (800 - 400) / 2, y: 0, width: 400, height: 400)
        func keptColumns(_ crop: PixelRect) -> Int {
            max(0, min(crop.x + crop.width, subject.x + subject.width) - max(crop.x, subject.x))
        }
        #expect(window.width == 400 && window.height == 400 && window.y == 0)
        #expect(window.x + window.width / 2 > 400, "window \(window)")
        #expect(keptColumns(window) == subject.width, "window \(window)")
        #expect(keptColumns(centreCrop) == 0)
    }
}
