import Testing
import ThumbdTestSupport
@testable import ThumbImaging
@testable import ThumbRequest

/// The pure geometry of a thumbnail: scaled size and crop window, no ImageMagick.
@Suite(.timeLimit(.minutes(2)))
struct ResizePlanTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let what: String
        let source: (width: Int, height: Int)
        let options: ProcessingOptions
        let scaled: (width: Int, height: Int)
        let crop: PixelRect?
        var testDescription: String { what }
    }

    static func resize(_ type: ResizingType, _ width: Int, _ height: Int, enlarge: Bool = false) -> ProcessingOptions {
        .with {
            $0.resizingType = type
            $0.width = width
            $0.height = height
            $0.enlarge = enlarge
        }
    }

    static let cases: [Case] = [
        // 4000x3000 into 300x200: fit scales by 200/3000, fill by 300/4000 and crops 25 rows,
        // centred: y = 12.5, rounded half away from zero
        Case(what: "fit", source: (4000, 3000), options: resize(.fit, 300, 200), scaled: (267, 200), crop: nil),
        Case(what: "fill", source: (4000, 3000), options: resize(.fill, 300, 200),
             scaled: (300, 225), crop: PixelRect(x: 0, y: 13, width: 300, height: 200)),
        Case(what: "force", source: (4000, 3000), options: resize(.force, 300, 200), scaled: (300, 200), crop: nil),
        Case(what: "no size keeps the source", source: (640, 480), options: ProcessingOptions(),
             scaled: (640, 480), crop: nil),
        // one side given: the other follows the aspect ratio, whatever the type
        Case(what: "fit, width only", source: (4000, 3000), options: resize(.fit, 300, 0),
             scaled: (300, 225), crop: nil),
        Case(what: "fit, height only", source: (4000, 3000), options: resize(.fit, 0, 200),
             scaled: (267, 200), crop: nil),
        Case(what: "fill, width only", source: (4000, 3000), options: resize(.fill, 300, 0),
             scaled: (300, 225), crop: nil),
        Case(what: "fill, height only, portrait", source: (3000, 4000), options: resize(.fill, 0, 200),
             scaled: (150, 200), crop: nil),
        // without enlarge a small source stays small
        Case(what: "fit of a small source", source: (200, 100), options: resize(.fit, 400, 300),
             scaled: (200, 100), crop: nil),
        Case(what: "width only of a small source", source: (200, 100), options: resize(.fit, 400, 0),
             scaled: (200, 100), crop: nil),
        Case(what: "fill of a small source", source: (200, 100), options: resize(.fill, 400, 300),
             scaled: (200, 100), crop: nil),
        Case(what: "fill of a source small on one side", source: (500, 100), options: resize(.fill, 300, 300),
             scaled: (500, 100), crop: PixelRect(x: 100, y: 0, width: 300, height: 100)),
        // with enlarge it scales up
        Case(what: "fit, enlarged", source: (200, 100), options: resize(.fit, 400, 300, enlarge: true),
             scaled: (400, 200), crop: nil),
        Case(what: "fill, enlarged", source: (200, 100), options: resize(.fill, 400, 300, enlarge: true),
             scaled: (600, 300), crop: PixelRect(x: 100, y: 0, width: 400, height: 300)),
        Case(what: "force, enlarged", source: (200, 100), options: resize(.force, 400, 300, enlarge: true),
             scaled: (400, 300), crop: nil),
        Case(what: "width only, enlarged", source: (200, 100), options: resize(.fit, 400, 0, enlarge: true),
             scaled: (400, 200), crop: nil),
        // a tiny result is at least one pixel
        Case(what: "never zero", source: (10_000, 10), options: resize(.fit, 100, 0), scaled: (100, 1), crop: nil),
    ]

    @Test(arguments: cases)
    func plansScaleAndCrop(_ test: Case) {
        let plan = ResizePlan(sourceWidth: test.source.width, sourceHeight: test.source.height, options: test.options)

        #expect(plan.scaledWidth == test.scaled.width)
        #expect(plan.scaledHeight == test.scaled.height)
        #expect(plan.resultCrop == test.crop)
        #expect(plan.outputWidth == (test.crop?.width ?? test.scaled.width))
        #expect(plan.outputHeight == (test.crop?.height ?? test.scaled.height))
    }

    /// imgproxy's `calcScale` without enlarge: when either side would grow, both scales are
    /// divided by the larger one, so no side ends up bigger than the source.
    @Test(arguments: [
        ((200, 100), (400, 300), (133, 100)),
        ((1000, 100), (400, 300), (133, 100)),
        ((100, 1000), (300, 400), (100, 133)),
    ] as [((Int, Int), (Int, Int), (Int, Int))])
    func forceWithoutEnlargeScalesNoSideUp(source: (Int, Int), box: (Int, Int), expected: (Int, Int)) {
        let plan = ResizePlan(sourceWidth: source.0, sourceHeight: source.1, options: Self.resize(.force, box.0, box.1))

        #expect(plan.scaledWidth <= source.0 && plan.scaledHeight <= source.1,
                "\(source) forced into \(box) became \(plan.scaledWidth)x\(plan.scaledHeight)")
        #expect(plan.scaledWidth == expected.0 && plan.scaledHeight == expected.1)
    }

    // MARK: Gravity

    /// A 100x50 window in a 300x200 image: 200 spare columns, 150 spare rows. The centre is
    /// imgproxy's: (spare + 1) / 2 rounded half to even, so 100.5 → 100 but 75.5 → 76.
    @Test(arguments: [
        (Gravity(anchor: .center), 100, 76),
        (Gravity(anchor: .north), 100, 0),
        (Gravity(anchor: .south), 100, 150),
        (Gravity(anchor: .east), 200, 76),
        (Gravity(anchor: .west), 0, 76),
        (Gravity(anchor: .northEast), 200, 0),
        (Gravity(anchor: .northWest), 0, 0),
        (Gravity(anchor: .southEast), 200, 150),
        (Gravity(anchor: .southWest), 0, 150),
        // offsets move the window away from the anchored edges (right and down for the centre)
        (Gravity(anchor: .northWest, offsetX: 10, offsetY: 20), 10, 20),
        (Gravity(anchor: .southEast, offsetX: 10, offsetY: 20), 190, 130),
        (Gravity(anchor: .center, offsetX: 10, offsetY: 20), 110, 96),
        (Gravity(anchor: .north, offsetX: 0, offsetY: 30), 100, 30),
        (Gravity(anchor: .east, offsetX: 30, offsetY: 0), 170, 76),
        // and the window never leaves the image
        (Gravity(anchor: .northWest, offsetX: 500, offsetY: 500), 200, 150),
        (Gravity(anchor: .southEast, offsetX: 500, offsetY: 500), 0, 0),
        (Gravity(anchor: .center, offsetX: -500, offsetY: -500), 0, 0),
        (Gravity(anchor: .west, offsetX: -10, offsetY: 0), 0, 76),
    ])
    func windowIsPlacedByGravity(gravity: Gravity, x: Int, y: Int) {
        let window = ResizePlan.window(width: 100, height: 50, in: (300, 200), gravity: gravity)

        #expect(window == PixelRect(x: x, y: y, width: 100, height: 50))
    }

    @Test(arguments: [
        // landscape 4000x2000 filled into 300x300 scales to 600x300: the window moves along x
        (4000, 2000, Gravity.Anchor.west, 0, 0),
        (4000, 2000, .center, 150, 0),
        (4000, 2000, .east, 300, 0),
        (4000, 2000, .southEast, 300, 0),
        // portrait 2000x4000 scales to 300x600: the window moves along y
        (2000, 4000, .north, 0, 0),
        (2000, 4000, .center, 0, 150),
        (2000, 4000, .south, 0, 300),
        (2000, 4000, .northWest, 0, 0),
    ])
    func fillCropsByGravity(width: Int, height: Int, anchor: Gravity.Anchor, x: Int, y: Int) {
        var options = Self.resize(.fill, 300, 300)
        options.gravity = Gravity(anchor: anchor)

        let plan = ResizePlan(sourceWidth: width, sourceHeight: height, options: options)

        #expect(plan.resultCrop == PixelRect(x: x, y: y, width: 300, height: 300))
    }

    // MARK: Decoding hints

    @Test(arguments: [
        // scaled size over a third of the source on either side: no hint
        (4000, 3000, resize(.fit, 300, 200), (267, 200) as (Int, Int)?),
        (900, 900, resize(.fit, 300, 300), (300, 300)),
        (4000, 3000, resize(.fill, 300, 200), (300, 225)),
        (1000, 1000, resize(.fit, 400, 400), nil),
        (4000, 600, resize(.force, 300, 300), nil),
        (640, 480, ProcessingOptions(), nil),
    ] as [(Int, Int, ProcessingOptions, (Int, Int)?)])
    func shrinkOnLoadHint(width: Int, height: Int, options: ProcessingOptions, expected: (Int, Int)?) {
        let plan = ResizePlan(sourceWidth: width, sourceHeight: height, options: options)

        let hint = Renderer.shrinkOnLoadHint(plan: plan, source: (width, height))

        #expect(hint?.width == expected?.0)
        #expect(hint?.height == expected?.1)
    }

    /// What a decoder that cuts (libwebp) reads: the fill's window mapped back to the source,
    /// whole pixels around it, its origin even.
    @Test func aFillWindowMapsBackToTheSourceForADecoderThatCuts() throws {
        // 4096x4096 filled to 300x200: scaled to 300x300, rows 50 to 250 kept, which are source
        // rows 682.67 to 3413.33
        let options = Self.resize(.fill, 300, 200)
        let plan = ResizePlan(sourceWidth: 4096, sourceHeight: 4096, options: options)
        let window = try #require(Renderer.decoderWindow(plan: plan, source: (4096, 4096), options: options))
        #expect(window.rect == PixelRect(x: 0, y: 682, width: 4096, height: 2732))
        #expect(window.size == (300, 200))
        // what is left to do: scale the cut to the window, nothing more to cut
        let rest = plan.afterDecoderCut()
        #expect((rest.scaledWidth, rest.scaledHeight) == (300, 200))
        #expect(rest.sourceCrop == nil && rest.resultCrop == nil)
        #expect((rest.outputWidth, rest.outputHeight) == (plan.outputWidth, plan.outputHeight))

        // a crop first: the window lies inside it, an odd origin moves left and up to even
        var cropped = options
        cropped.crop = Crop(width: 1001, height: 1001, gravity: Gravity(anchor: .northWest, offsetX: 7, offsetY: 7))
        let inCrop = ResizePlan(sourceWidth: 4096, sourceHeight: 4096, options: cropped)
        let cut = try #require(Renderer.decoderWindow(plan: inCrop, source: (4096, 4096), options: cropped))
        #expect(cut.rect == PixelRect(x: 6, y: 172, width: 1002, height: 670))
    }

    @Test(arguments: [
        ("fit: no window", resize(.fit, 300, 200)),
        ("smart gravity: the content places it", .with { $0.resizingType = .fill; $0.width = 300; $0.height = 200; $0.gravity = Gravity(anchor: .smart) }),
        ("rotated before the cut", .with { $0.resizingType = .fill; $0.width = 300; $0.height = 200; $0.rotate = 90 }),
        ("flipped before the cut", .with { $0.resizingType = .fill; $0.width = 300; $0.height = 200; $0.flipHorizontal = true }),
    ])
    func noDecoderWindowWhenTheGeometryAloneDoesNotFixIt(what: String, options: ProcessingOptions) {
        let plan = ResizePlan(sourceWidth: 4096, sourceHeight: 4096, options: options)
        #expect(Renderer.decoderWindow(plan: plan, source: (4096, 4096), options: options) == nil, "\(what)")
    }
}
