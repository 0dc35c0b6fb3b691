import Testing
import ThumbdTestSupport
@testable import ThumbImaging
@testable import ThumbRequest

/// imgproxy's geometry rules that its own tests have no case for, read from its code: each case
/// names the function it follows.
extension ImgproxyGeometryParityTests {
    // imgproxy processing/prepare.go calcScale: the dpr is capped where it would enlarge
    // without enlarge, extend included (whose canvas then stays the asked size), and it scales
    // crops, padding and sizes when no width or height is asked for.
    static let dpr = [
        Case("rs:fit:400:400/dpr:2/ex:1", 400, 400),
        Case("rs:fit:400:400/dpr:2/ex:1/el:1", 800, 800),
        Case("rs:fit:400:0/dpr:2/ex:1", 400, 100),
        Case("dpr:2", 200, 100),
        Case("dpr:2/el:1", 400, 200),
        Case("dpr:0.5", 100, 50),
        Case("c:50:50/dpr:2", 50, 50),
        Case("c:50:50/dpr:2/el:1", 100, 100),
        Case("dpr:2/pd:10", 220, 120),
        Case("dpr:2/pd:10/el:1", 440, 240),
        // a dpr below 1 on a source smaller than the box is compensated, so it is not shrunk further
        Case("rs:fit:400:400/dpr:0.5", 200, 100),
        // but extended it keeps the composition: half the size on half the canvas
        Case("rs:fit:400:400/dpr:0.5/ex:1", 200, 200),
    ]

    // imgproxy processing/prepare.go calcScale and calcSizes: minimum sizes apply after the
    // no-enlarge cap (so they may enlarge), keep the aspect ratio, and the result is still cut
    // to an asked width or height (imgproxy's docs warn of it under min-width).
    static let minimumSizes = [
        Case("rs:fit:400:400/mw:300", 300, 150),
        Case("rs:fit:400:400/mh:150", 300, 150),
        Case("mw:400", 400, 200),
        Case("w:100/mw:150", 100, 75),
        Case("rs:fit:100:100/mw:150", 100, 75, source: (400, 200)),
        Case("rs:fit:100:100/mh:80", 100, 80, source: (400, 200)),
        Case("rs:fit:100:100/mw:150/dpr:2", 200, 150, source: (400, 200)),
        Case("rs:fill:100:100/mw:300", 100, 100),
    ]

    // imgproxy processing/prepare.go calcScale: force keeps the source's size on a side given
    // as 0; zoom multiplies the asked size too, so a fill keeps a zoomed window; auto is fill
    // when source and box are both landscape (or square) or both portrait, a side not given
    // counting as the source's.
    static let resizingTypes = [
        Case("rs:force:100:0", 100, 100),
        Case("rs:force:0:50", 200, 50),
        Case("rs:force:0:0", 200, 100),
        Case("rs:force:400:0/el:1", 400, 100),
        Case("rs:fill:100:100/z:2", 200, 200, source: (400, 200)),
        Case("rs:fit:100:100/z:0.5", 50, 25),
        Case("z:2", 200, 100),
        Case("z:2/el:1", 400, 200),
        Case("rs:auto:100:50", 100, 50),
        Case("rs:auto:50:100", 50, 25),
        Case("rs:auto:50:50", 50, 50),
        Case("rs:auto:100:50", 25, 50, source: (100, 200)),
        // crop sizes from 1 up drop their fraction; larger than the source, the source's side
        Case("c:50.7:50.7", 50, 50),
        Case("c:300:50", 200, 50),
        Case("c:0.5:0", 100, 100),
    ]

    // imgproxy processing/prepare.go ExtractGeometry: the plan sees the source turned upright
    // by rotate (and the EXIF orientation, when auto_rotate is on).
    static let rotation = [
        Case("rot:90", 100, 200),
        Case("rot:180", 200, 100),
        Case("rot:270/rs:fill:50:50", 50, 50),
        Case("rot:90/w:50", 50, 100),
    ]

    @Test(arguments: dpr + minimumSizes + resizingTypes + rotation)
    func outputSizeFollowsImgproxysRules(_ test: Case) throws {
        let plan = try Self.plan(test.options, source: test.source)

        #expect((plan.outputWidth, plan.outputHeight) == test.output)
    }

    // imgproxy processing/prepare.go ExtractGeometry: an EXIF turn by a right angle swaps the
    // sides unless auto_rotate is off, and `rotate` adds to it.
    @Test(arguments: [("", 100, 200), ("ar:0", 200, 100), ("rot:90", 200, 100), ("ar:0/rot:90", 100, 200)])
    func exifTurnsAndRotateAddUp(options: String, width: Int, height: Int) throws {
        let parsed = try OptionTable.parse(options.isEmpty ? "w:0" : options)
        let header = Renderer.Header(width: 200, height: 100, frames: 1, transposed: true, pinged: nil)

        let upright = Renderer.uprightSize(header, options: parsed)

        #expect((upright.width, upright.height) == (width, height))
    }

    // imgproxy processing/calc_position.go calcPosition: a focus point centres the window on
    // the point, as far as the image allows; on a canvas it places the image the same way.
    @Test func focusPointCentresTheWindowOnThePoint() throws {
        // 400 x 200 filled to 100 x 100 is scaled to 200 x 100: the point 0.6 across is column 120
        let fill = try Self.plan("rs:fill:100:100/g:fp:0.6:0.5", source: (400, 200))
        #expect(fill.resultCrop == PixelRect(x: 70, y: 0, width: 100, height: 100))
        let atTheEdge = try Self.plan("rs:fill:100:100/g:fp:0.9:0.5", source: (400, 200))
        #expect(atTheEdge.resultCrop == PixelRect(x: 100, y: 0, width: 100, height: 100))
        // the 200 x 100 image on a 400 x 400 canvas, centred on (100, 300)
        let extended = try Self.plan("rs:fit:400:400/ex:1:fp:0.25:0.75")
        #expect((extended.canvas?.x, extended.canvas?.y) == (0, 250))
    }

    // imgproxy processing/calc_position.go calcPosition: offsets from 1 up (either way) are
    // pixels, below 1 shares of the image the window is cut from.
    @Test(arguments: [("c:50:50:ce:1", 77), ("c:50:50:ce:0.99", 150), ("c:50:50:ce:-0.1", 56), ("c:50:50:ce:-1", 75)])
    func offsetsBelowOneAreShares(options: String, x: Int) throws {
        let plan = try Self.plan(options)

        #expect(plan.sourceCrop?.x == x)
    }

    // imgproxy processing/watermark.go applyWatermark: the mark is placed by calcPosition with
    // overflow allowed (at least one pixel stays on the picture), relative offsets included.
    @Test func watermarkPositionsFollowTheSameRules() {
        let shares = Gravity(anchor: .northWest, offsetX: 0.25, offsetY: 0.5)
        #expect(ResizePlan.window(width: 40, height: 20, in: (400, 200), gravity: shares, allowsOverflow: true)
            == PixelRect(x: 100, y: 100, width: 40, height: 20))
        let outwards = Gravity(anchor: .southEast, offsetX: -30, offsetY: -10)
        #expect(ResizePlan.window(width: 40, height: 20, in: (400, 200), gravity: outwards, allowsOverflow: true)
            == PixelRect(x: 390, y: 190, width: 40, height: 20))
        let farOut = Gravity(anchor: .southEast, offsetX: -500, offsetY: -500)
        #expect(ResizePlan.window(width: 40, height: 20, in: (400, 200), gravity: farOut, dpr: 2, allowsOverflow: true)
            == PixelRect(x: 399, y: 199, width: 40, height: 20))
    }
}
