import CMagickWand
import Testing
import ThumbdTestSupport
@testable import ThumbImaging
@testable import ThumbRequest

/// GIF and WebP frames drawn on part of their canvas, at an offset (most GIFs on the web store
/// each frame as the rectangle that changed): the thumbnail is the scaled canvas, and every frame
/// shows each patch where it lands on it, with the delays, loop count and disposal kept.
@Suite(.computing, .timeLimit(.minutes(5)))
struct AnimationCanvasTests {
    typealias Patch = GoldenImages.Patch

    static let red = RGBColor(red: 255, green: 0, blue: 0)
    static let lime = RGBColor(red: 0, green: 255, blue: 0)
    static let blue = RGBColor(red: 0, green: 0, blue: 255)

    /// An animation to render: its canvas, its frames' patches and what each frame leaves.
    struct Animation: Sendable, CustomTestStringConvertible {
        let name: String
        let canvas: (width: Int, height: Int)
        let patches: [Patch]
        var dispose = NoneDispose
        var blend = true
        var testDescription: String { name }

        /// What each frame shows, bottom up: every patch so far, or with background disposal,
        /// its own alone.
        var scenes: [[Patch]] {
            patches.indices.map { dispose == BackgroundDispose ? [patches[$0]] : Array(patches[...$0]) }
        }

        func source(_ format: SourceFormat, loops: Int = 3) -> [UInt8] {
            GoldenImages.patchedAnimation(canvas: canvas, frames: patches, delays: [10, 20, 30], loops: loops,
                                          dispose: dispose, blend: blend,
                                          format: ImageFormat(rawValue: format.rawValue)!)
        }
    }

    /// The issue's: 245x245, a whole first frame, then a 245x212 frame at (0, 32) (WebP places
    /// frames at even offsets) and a 100x50 one at (60, 100).
    static let issue = Animation(name: "later frames smaller", canvas: (245, 245), patches: [
        Patch(color: red, x: 0, y: 0, width: 245, height: 245),
        Patch(color: lime, x: 0, y: 32, width: 245, height: 212),
        Patch(color: blue, x: 60, y: 100, width: 100, height: 50),
    ])
    /// A first frame that covers only the middle of a wide canvas.
    static let partialFirst = Animation(name: "first frame smaller", canvas: (200, 100), patches: [
        Patch(color: red, x: 50, y: 26, width: 100, height: 50),
        Patch(color: blue, x: 0, y: 0, width: 50, height: 50),
        Patch(color: lime, x: 150, y: 50, width: 50, height: 50),
    ])
    /// A square that moves, each frame clearing its rectangle before the next.
    static let moving = Animation(name: "background disposal", canvas: (120, 120), patches: [
        Patch(color: red, x: 10, y: 10, width: 40, height: 40),
        Patch(color: red, x: 70, y: 70, width: 40, height: 40),
        Patch(color: blue, x: 10, y: 70, width: 40, height: 40),
    ], dispose: BackgroundDispose)
    /// WebP only: a frame that replaces its rectangle (no blending), here with transparency.
    static let cutOut = Animation(name: "frame replacing its rectangle", canvas: (120, 120), patches: [
        Patch(color: red, x: 0, y: 0, width: 120, height: 120),
        Patch(color: nil, x: 20, y: 20, width: 40, height: 40),
        Patch(color: blue, x: 60, y: 60, width: 40, height: 40),
    ], blend: false)

    /// Every source format with every animated output.
    static let conversions: [(source: SourceFormat, output: ImageFormat)] = [
        (.gif, .gif), (.gif, .webp), (.webp, .gif), (.webp, .webp),
    ]

    static func render(_ source: [UInt8], from sourceFormat: SourceFormat, to format: ImageFormat,
                       maxFrames: Int) throws -> AnimationProbe {
        var configuration = Renderer.Configuration.unhurried
        configuration.maxAnimationFrames = maxFrames
        var options = ProcessingOptions()
        options.width = 100
        options.height = 100
        options.format = format
        return try AnimationProbe(Renderer(configuration: configuration).render(source, sourceFormat: sourceFormat,
                                                                                options: options).bytes)
    }

    @Test(arguments: [issue, partialFirst, moving], conversions)
    func everyFrameIsTheScaledCanvasWithEachPatchWhereItLands(
        animation: Animation, formats: (source: SourceFormat, output: ImageFormat)
    ) throws {
        // Given an animation whose frames are stored as patches of its canvas
        let source = animation.source(formats.source)
        let header = try Renderer.header(of: source, format: formats.source, maxPixels: 50_000_000, maxFrames: 10)
        #expect((header.width, header.height, header.frames) == (animation.canvas.width, animation.canvas.height, 3))

        // When it is rendered animated, to fit 100x100
        let probe = try Self.render(source, from: formats.source, to: formats.output, maxFrames: 10)

        // Then every frame is drawn on the canvas scaled, shown whole, after its delay
        let scaled = Self.fit(animation.canvas, in: 100)
        #expect(probe.stored.count == 3 && probe.framesShown == 3)
        #expect(probe.canvas == scaled)
        for frame in probe.stored {
            #expect((frame.canvasWidth, frame.canvasHeight) == scaled)
            #expect(frame.x >= 0 && frame.x + frame.width <= scaled.width, "\(frame) lies outside the canvas")
            #expect(frame.y >= 0 && frame.y + frame.height <= scaled.height, "\(frame) lies outside the canvas")
            // A GIF's frames are written whole; WebP's encoder cuts its own rectangles.
            if formats.output == .gif {
                #expect((frame.width, frame.height, frame.x, frame.y) == (scaled.width, scaled.height, 0, 0))
            }
        }
        #expect(probe.stored.map(\.delayMilliseconds) == [100, 200, 300])
        // and each patch lands where it belongs, the rest of the canvas transparent
        for (index, scene) in animation.scenes.enumerated() {
            Self.expectShown(probe, frame: index, scene, canvas: animation.canvas)
        }
    }

    @Test(arguments: [issue, partialFirst], [SourceFormat.gif, .webp].flatMap { source in
        [ImageFormat.png, .gif, .webp].map { (source: source, output: $0) }
    })
    func theFirstFrameAloneIsTheScaledCanvas(
        animation: Animation, formats: (source: SourceFormat, output: ImageFormat)
    ) throws {
        // Given an animation, when only its first frame is rendered (the default)
        let source = animation.source(formats.source)
        let probe = try Self.render(source, from: formats.source, to: formats.output, maxFrames: 1)

        // Then the thumbnail is the scaled canvas, the first patch where it lands on it
        #expect(probe.stored.count == 1)
        #expect(probe.canvas == Self.fit(animation.canvas, in: 100))
        Self.expectShown(probe, frame: 0, animation.scenes[0], canvas: animation.canvas)
    }

    @Test(arguments: conversions, [0, 1, 3])
    func theLoopCountIsKept(formats: (source: SourceFormat, output: ImageFormat), loops: Int) throws {
        // Given an animation played for ever, once (a GIF without a loop count), or three times
        let source = Self.issue.source(formats.source, loops: loops)

        // When it is rendered animated
        let probe = try Self.render(source, from: formats.source, to: formats.output, maxFrames: 10)

        // Then it stays an animation of three frames, played as many times
        #expect(probe.stored.count == 3)
        #expect(probe.loops == loops)
    }

    @Test(arguments: [ImageFormat.gif, .webp])
    func aWebPFrameThatReplacesItsRectangleLeavesWhatItHolds(output: ImageFormat) throws {
        // Given a WebP whose second frame replaces a square of the red canvas with transparency
        let animation = Self.cutOut

        // When it is rendered animated
        let probe = try Self.render(animation.source(.webp), from: .webp, to: output, maxFrames: 10)

        // Then that square is transparent from the second frame on, not red drawn over by nothing
        #expect(probe.framesShown == 3)
        Self.expectShown(probe, frame: 1, animation.scenes[1], canvas: animation.canvas)
        Self.expectShown(probe, frame: 2, animation.scenes[2], canvas: animation.canvas)
    }

    // MARK: - Helpers

    /// The size `canvas` fits to in a `side` x `side` box, as rs:fit rounds it.
    static func fit(_ canvas: (width: Int, height: Int), in side: Int) -> (width: Int, height: Int) {
        let scale = min(Double(side) / Double(canvas.width), Double(side) / Double(canvas.height))
        return (Int((Double(canvas.width) * scale).rounded()), Int((Double(canvas.height) * scale).rounded()))
    }

    /// Every third pixel of the shown frame, but those within 2 pixels of a patch's scaled edge
    /// (where scaling blends colours), has the colour of the topmost patch over it, or none.
    static func expectShown(_ probe: AnimationProbe, frame: Int, _ scene: [Patch], canvas: (width: Int, height: Int),
                            sourceLocation: SourceLocation = #_sourceLocation) {
        let scaleX = Double(probe.canvas.width) / Double(canvas.width)
        let scaleY = Double(probe.canvas.height) / Double(canvas.height)
        let rectangles = scene.map { patch in
            (patch.color, x0: Double(patch.x) * scaleX, y0: Double(patch.y) * scaleY,
             x1: Double(patch.x + patch.width) * scaleX, y1: Double(patch.y + patch.height) * scaleY)
        }
        var wrong: [String] = []
        for y in stride(from: 0, to: probe.canvas.height, by: 3) {
            for x in stride(from: 0, to: probe.canvas.width, by: 3) {
                let (px, py) = (Double(x) + 0.5, Double(y) + 0.5)
                let nearEdge = rectangles.contains { r in
                    let alongX = px > r.x0 - 2 && px < r.x1 + 2, alongY = py > r.y0 - 2 && py < r.y1 + 2
                    return (alongY && (abs(px - r.x0) < 2 || abs(px - r.x1) < 2))
                        || (alongX && (abs(py - r.y0) < 2 || abs(py - r.y1) < 2))
                }
                if nearEdge { continue }
                let expected = rectangles.last { px > $0.x0 && px < $0.x1 && py > $0.y0 && py < $0.y1 }?.0 ?? nil
                let seen = probe.pixel(frame: frame, x: x, y: y)
                let matches = expected.map { color in
                    seen.alpha > 225 && abs(seen.red - Int(color.red)) <= 40 && abs(seen.green - Int(color.green)) <= 40
                        && abs(seen.blue - Int(color.blue)) <= 40
                } ?? (seen.alpha < 30)
                if !matches {
                    wrong.append("(\(x),\(y)) is \(seen), expected \(expected.map(\.magickName) ?? "transparent")")
                }
            }
        }
        #expect(wrong.isEmpty, "frame \(frame): \(wrong.count) pixels wrong, first \(wrong.prefix(3))",
                sourceLocation: sourceLocation)
    }
}
