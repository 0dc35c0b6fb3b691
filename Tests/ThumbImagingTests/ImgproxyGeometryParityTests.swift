import Testing
import ThumbdTestSupport
@testable import ThumbImaging
@testable import ThumbRequest

/// imgproxy's geometry, case by case: the output sizes its own tests expect, and where its rules
/// (processing/prepare.go, processing/calc_position.go) put every window and canvas. Its tests
/// render testdata/geometry.png, 200 x 100, which is the default source here.
@Suite(.timeLimit(.minutes(2)))
struct ImgproxyGeometryParityTests {
    /// imgproxy URL options, the source they apply to, and the output imgproxy gives.
    struct Case: Sendable, CustomTestStringConvertible {
        let options: String
        let source: (width: Int, height: Int)
        let output: (width: Int, height: Int)
        var testDescription: String { "\(options) on \(source.width)x\(source.height)" }

        init(_ options: String, _ width: Int, _ height: Int, source: (width: Int, height: Int) = (200, 100)) {
            self.options = options
            self.source = source
            output = (width, height)
        }
    }

    /// The plan for `options` (security options allowed, as imgproxy's tests allow them) on a
    /// source of `source`, turned upright first as the renderer turns it.
    static func plan(_ options: String, source: (width: Int, height: Int) = (200, 100)) throws -> ResizePlan {
        let parsed = try OptionTable.parse(options, with: OptionParser(allowSecurityOptions: true))
        let header = Renderer.Header(width: source.width, height: source.height, frames: 1, transposed: false,
                                     pinged: nil)
        let upright = Renderer.uprightSize(header, options: parsed)
        return ResizePlan(sourceWidth: upright.width, sourceHeight: upright.height, options: parsed)
    }

    /// `rs:type:width:height` plus `extra`, for each (width, height) → (output width, height).
    static func resize(_ type: String, _ extra: String, _ rows: [(Int, Int, Int, Int)]) -> [Case] {
        rows.map { Case("rs:\(type):\($0.0):\($0.1)\(extra)", $0.2, $0.3) }
    }

    // imgproxy processing/processing_test.go TestResizeToFit
    static let resizeToFit = resize("fit", "", [
        (50, 50, 50, 25), (50, 20, 40, 20), (20, 50, 20, 10), (300, 300, 200, 100), (300, 50, 100, 50),
        (100, 300, 100, 50), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 200, 100), (300, 0, 200, 100),
    ])
    // imgproxy processing/processing_test.go TestResizeToFitEnlarge
    static let resizeToFitEnlarge = resize("fit", "/el:1", [
        (50, 50, 50, 25), (50, 20, 40, 20), (20, 50, 20, 10), (300, 300, 300, 150), (300, 125, 250, 125),
        (250, 300, 250, 125), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 400, 200), (300, 0, 300, 150),
    ])
    // imgproxy processing/processing_test.go TestResizeToFitExtend
    static let resizeToFitExtend = resize("fit", "/ex:1", [
        (50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 300, 300), (300, 125, 300, 125),
        (250, 300, 250, 300), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 200, 200), (300, 0, 300, 100),
    ])
    // imgproxy processing/processing_test.go TestResizeToFitExtendAR
    static let resizeToFitExtendAR = resize("fit", "/exar:1", [
        (50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 200, 200), (300, 125, 240, 100),
        (250, 500, 200, 400), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 200, 100), (300, 0, 200, 100),
    ])
    // imgproxy processing/processing_test.go TestResizeToFill
    static let resizeToFill = resize("fill", "", [
        (50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 200, 100), (300, 50, 200, 50),
        (100, 300, 100, 100), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 200, 100), (300, 0, 200, 100),
    ])
    // imgproxy processing/processing_test.go TestResizeToFillEnlarge
    static let resizeToFillEnlarge = resize("fill", "/el:1", [
        (50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 300, 300), (300, 125, 300, 125),
        (250, 300, 250, 300), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 400, 200), (300, 0, 300, 150),
    ])
    // imgproxy processing/processing_test.go TestResizeToFillExtend
    static let resizeToFillExtend = resize("fill", "/ex:1", [
        (50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 300, 300), (300, 125, 300, 125),
        (250, 300, 250, 300), (300, 50, 300, 50), (100, 300, 100, 300), (0, 50, 100, 50), (50, 0, 50, 25),
        (0, 200, 200, 200), (300, 0, 300, 100),
    ])
    // imgproxy processing/processing_test.go TestResizeToFillExtendAR
    static let resizeToFillExtendAR = resize("fill", "/exar:1", [
        (50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 200, 200), (300, 125, 240, 100),
        (250, 500, 200, 400), (300, 50, 300, 50), (100, 300, 100, 300), (0, 50, 100, 50), (50, 0, 50, 25),
        (0, 200, 200, 100), (300, 0, 200, 100),
    ])
    // imgproxy processing/processing_test.go TestResizeToFillDown
    static let resizeToFillDown = resize("fill-down", "", [
        (50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 100, 100), (300, 125, 200, 83),
        (250, 300, 83, 100), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 200, 100), (300, 0, 200, 100),
    ])
    // imgproxy processing/processing_test.go TestResizeToFillDownEnlarge
    static let resizeToFillDownEnlarge = resize("fill-down", "/el:1", [
        (50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 300, 300), (300, 125, 300, 125),
        (250, 300, 250, 300), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 400, 200), (300, 0, 300, 150),
    ])
    // imgproxy processing/processing_test.go TestResizeToFillDownExtend
    static let resizeToFillDownExtend = resize("fill-down", "/ex:1", [
        (50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 300, 300), (300, 125, 300, 125),
        (250, 300, 250, 300), (300, 50, 300, 50), (100, 300, 100, 300), (0, 50, 100, 50), (50, 0, 50, 25),
        (0, 200, 200, 200), (300, 0, 300, 100),
    ])
    // imgproxy processing/processing_test.go TestResizeToFillDownExtendAR
    static let resizeToFillDownExtendAR = resize("fill-down", "/exar:1", [
        (50, 50, 50, 50), (50, 20, 50, 20), (20, 50, 20, 50), (300, 300, 100, 100), (300, 125, 200, 83),
        (250, 300, 83, 100), (0, 50, 100, 50), (50, 0, 50, 25), (0, 200, 200, 100), (300, 0, 200, 100),
    ])

    // imgproxy processing/processing_test.go TestResultSizeLimit: max_result_dimension scales the
    // whole result down (padding and canvas included) rather than refusing it.
    static let resultSizeLimit = [
        Case("mrd:1000/rs:fit:100:100", 100, 50), Case("mrd:50/rs:fit:100:100", 50, 25),
        Case("mrd:50/rs:fit:0:0", 50, 25), Case("mrd:100/rs:fit:0:100", 100, 50),
        Case("mrd:50/rs:fit:150:0", 50, 25), Case("mrd:100/rs:fit:1000:1000", 100, 50),
        Case("mrd:100/rs:fit:1000:1000/el:1", 100, 50), Case("mrd:100/rs:fit:1000:2000/ex:1", 50, 100),
        Case("mrd:100/rs:fit:1000:2000/exar:1", 50, 100), Case("mrd:100/rs:fit:100:150/rot:90", 50, 100),
        Case("mrd:100/rs:fit:0:0/rot:90", 50, 100), Case("mrd:200/rs:fit:100:100/pd:100:200:300:400", 200, 129),
        Case("mrd:1000/rs:fill:100:100", 100, 100), Case("mrd:50/rs:fill:100:100", 50, 50),
        Case("mrd:50/rs:fill:1000:50", 50, 13), Case("mrd:50/rs:fill:100:1000", 50, 50),
        Case("mrd:50/rs:fill:0:0", 50, 25), Case("mrd:100/rs:fill:0:100", 100, 50),
        Case("mrd:50/rs:fill:150:0", 50, 25), Case("mrd:100/rs:fill:1000:1000", 100, 50),
        Case("mrd:100/rs:fill:1000:1000/el:1", 100, 100), Case("mrd:100/rs:fill:1000:2000/ex:1", 50, 100),
        Case("mrd:100/rs:fill:1000:2000/exar:1", 50, 100), Case("mrd:100/rs:fill:100:150/rot:90", 67, 100),
        Case("mrd:100/rs:fill:0:0/rot:90", 50, 100), Case("mrd:200/rs:fill:100:100/pd:100:200:300:400", 200, 144),
        Case("mrd:1000/rs:fill-down:100:100", 100, 100), Case("mrd:50/rs:fill-down:100:100", 50, 50),
        Case("mrd:50/rs:fill-down:1000:50", 50, 3), Case("mrd:50/rs:fill-down:100:1000", 5, 50),
        Case("mrd:50/rs:fill-down:0:0", 50, 25), Case("mrd:100/rs:fill-down:0:100", 100, 50),
        Case("mrd:50/rs:fill-down:150:0", 50, 25), Case("mrd:100/rs:fill-down:1000:1000", 100, 100),
        Case("mrd:100/rs:fill-down:1000:1000/el:1", 100, 100), Case("mrd:100/rs:fill-down:1000:2000/ex:1", 50, 100),
        Case("mrd:100/rs:fill-down:1000:2000/exar:1", 50, 100),
        Case("mrd:100/rs:fill-down:1000:1500/rot:90", 67, 100), Case("mrd:100/rs:fill-down:0:0/rot:90", 50, 100),
        Case("mrd:200/rs:fill-down:100:100/pd:100:200:300:400", 200, 144),
        Case("mrd:200/rs:fill-down:1000:1000/pd:100:200:300:400", 200, 144),
    ]

    // imgproxy processing/padding_test.go TestPadding: padding scales by dpr, with the image
    // (enlarge on, so that a dpr above 1 may enlarge).
    static let padding = [
        Case("dpr:0.5/pd:20:30:40:10/el:1", 120, 80),
        Case("dpr:1/pd:20:30:40:10/el:1", 240, 160),
        Case("dpr:2/pd:20:30:40:10/el:1", 480, 320),
    ]

    @Test(arguments: resizeToFit + resizeToFitEnlarge + resizeToFitExtend + resizeToFitExtendAR
        + resizeToFill + resizeToFillEnlarge + resizeToFillExtend + resizeToFillExtendAR
        + resizeToFillDown + resizeToFillDownEnlarge + resizeToFillDownExtend + resizeToFillDownExtendAR
        + resultSizeLimit + padding)
    func outputSizeIsImgproxys(_ test: Case) throws {
        // Given imgproxy's options on its test image
        // When thumbd plans them
        let plan = try Self.plan(test.options, source: test.source)

        // Then the output is the size imgproxy's test expects
        #expect((plan.outputWidth, plan.outputHeight) == test.output)
    }

    // MARK: Where windows and canvases sit

    /// Options, the output size imgproxy's test expects, and where imgproxy's calcPosition puts
    /// the window (crop, result crop) or the image on its canvas (extend).
    struct Placed: Sendable, CustomTestStringConvertible {
        let options: String
        let output: (width: Int, height: Int)
        let spot: (x: Int, y: Int)
        var testDescription: String { options }

        init(_ options: String, _ width: Int, _ height: Int, at x: Int, _ y: Int) {
            self.options = options
            output = (width, height)
            spot = (x, y)
        }
    }

    // imgproxy processing/crop_test.go TestResizeFill: fill to 100 x 26 (the scaled image is
    // 100 x 50, 24 rows to spare) or 26 x 100 (200 x 100, 174 columns to spare). The centre is
    // (spare + 1) / 2 rounded half to even; relative offsets are shares of the scaled image.
    static let resizeFill = [
        Placed("rs:fill:100:26/g:ce", 100, 26, at: 0, 12),
        Placed("rs:fill:100:26/g:no", 100, 26, at: 0, 0),
        Placed("rs:fill:100:26/g:so", 100, 26, at: 0, 24),
        Placed("rs:fill:100:26/g:noea", 100, 26, at: 0, 0),
        Placed("rs:fill:100:26/g:soea", 100, 26, at: 0, 24),
        Placed("rs:fill:100:26/g:sowe", 100, 26, at: 0, 24),
        Placed("rs:fill:100:26/g:nowe", 100, 26, at: 0, 0),
        Placed("rs:fill:26:100/g:ce", 26, 100, at: 88, 0),
        Placed("rs:fill:26:100/g:ea", 26, 100, at: 174, 0),
        Placed("rs:fill:26:100/g:we", 26, 100, at: 0, 0),
        Placed("rs:fill:26:100/g:noea", 26, 100, at: 174, 0),
        Placed("rs:fill:26:100/g:soea", 26, 100, at: 174, 0),
        Placed("rs:fill:26:100/g:sowe", 26, 100, at: 0, 0),
        Placed("rs:fill:26:100/g:nowe", 26, 100, at: 0, 0),
        // dpr 2: the source is just large enough for 200 x 52
        Placed("rs:fill:100:26/g:ce/dpr:2", 200, 52, at: 0, 24),
        // offsets in pixels, times the dpr in effect, rounded half to even (2.5 → 2)
        Placed("rs:fill:100:26/g:no::5", 100, 26, at: 0, 5),
        Placed("rs:fill:100:26/g:no::5/dpr:0.5", 50, 13, at: 0, 2),
        Placed("rs:fill:100:26/g:no::5/dpr:2", 200, 52, at: 0, 10),
        Placed("rs:fill:26:100/g:no:5", 26, 100, at: 93, 0),
        Placed("rs:fill:26:100/g:no:5/dpr:0.5", 13, 50, at: 46, 0),
        // dpr 2 would enlarge the 100 rows: it falls to 1, offsets with it
        Placed("rs:fill:26:100/g:no:5/dpr:2", 26, 100, at: 93, 0),
        // relative offsets: 0.1 of the scaled image's 50, 25 and 100 rows
        Placed("rs:fill:100:26/g:no::0.1", 100, 26, at: 0, 5),
        Placed("rs:fill:100:26/g:no::0.1/dpr:0.5", 50, 13, at: 0, 2),
        Placed("rs:fill:100:26/g:no::0.1/dpr:2", 200, 52, at: 0, 10),
    ]

    @Test(arguments: resizeFill)
    func resultWindowSitsWhereImgproxyPutsIt(_ test: Placed) throws {
        let plan = try Self.plan(test.options)

        #expect((plan.outputWidth, plan.outputHeight) == test.output)
        let window = try #require(plan.resultCrop)
        #expect((window.x, window.y) == test.spot)
    }

    // imgproxy processing/crop_test.go TestCrop: 50 x 50 cut from the 200 x 100 source, before
    // any scaling, so offsets are source pixels whatever the dpr; the cut is then scaled by it.
    static let crop = [
        Placed("c:50:50:ce", 50, 50, at: 76, 26),
        Placed("c:50:50:no", 50, 50, at: 76, 0),
        Placed("c:50:50:so", 50, 50, at: 76, 50),
        Placed("c:50:50:ea", 50, 50, at: 150, 26),
        Placed("c:50:50:we", 50, 50, at: 0, 26),
        Placed("c:50:50:noea", 50, 50, at: 150, 0),
        Placed("c:50:50:nowe", 50, 50, at: 0, 0),
        Placed("c:50:50:soea", 50, 50, at: 150, 50),
        Placed("c:50:50:sowe", 50, 50, at: 0, 50),
        Placed("c:50:50:ce:10", 50, 50, at: 86, 26),
        Placed("c:50:50:ce::10", 50, 50, at: 76, 36),
        Placed("c:50:50:ce:10:10", 50, 50, at: 86, 36),
        // relative offsets: 0.1 of the source's 200 columns and 100 rows
        Placed("c:50:50:ce:0.1", 50, 50, at: 96, 26),
        Placed("c:50:50:ce::0.1", 50, 50, at: 76, 36),
        Placed("c:50:50:ce:0.1:0.1", 50, 50, at: 96, 36),
        Placed("c:50:50:ce:10:10/dpr:0.5", 25, 25, at: 86, 36),
    ]

    @Test(arguments: crop)
    func cropSitsWhereImgproxyPutsIt(_ test: Placed) throws {
        let plan = try Self.plan(test.options)

        #expect((plan.outputWidth, plan.outputHeight) == test.output)
        let cut = try #require(plan.sourceCrop)
        #expect((cut.x, cut.y) == test.spot)
    }

    // imgproxy processing/crop_test.go TestCropGravityPriority: crop's own gravity wins over
    // `gravity`, which applies when crop names none.
    @Test func cropGravityWinsOverGravity() throws {
        let byGravity = try Self.plan("g:no/c:50:50").sourceCrop
        let byCropGravity = try Self.plan("c:50:50:no").sourceCrop
        let both = try Self.plan("g:so/c:50:50:no").sourceCrop

        #expect(byGravity == PixelRect(x: 76, y: 0, width: 50, height: 50))
        #expect(byCropGravity == byGravity)
        #expect(both == byGravity)
    }

    // imgproxy processing/extend_test.go TestExtend: fit into 500 x 500 and extend. The image
    // stays 200 x 100 (dpr 2 would enlarge it, so it falls to 1, and the canvas with it); at dpr
    // 0.5 it is 100 x 50 on 250 x 250. Relative offsets are shares of the canvas.
    static let extend = [
        Placed("w:500/h:500/ex:1:ce", 500, 500, at: 150, 200),
        Placed("w:500/h:500/ex:1:no", 500, 500, at: 150, 0),
        Placed("w:500/h:500/ex:1:so", 500, 500, at: 150, 400),
        Placed("w:500/h:500/ex:1:ea", 500, 500, at: 300, 200),
        Placed("w:500/h:500/ex:1:we", 500, 500, at: 0, 200),
        Placed("w:500/h:500/ex:1:noea", 500, 500, at: 300, 0),
        Placed("w:500/h:500/ex:1:soea", 500, 500, at: 300, 400),
        Placed("w:500/h:500/ex:1:sowe", 500, 500, at: 0, 400),
        Placed("w:500/h:500/ex:1:nowe", 500, 500, at: 0, 0),
        Placed("w:500/h:500/ex:1:no::5", 500, 500, at: 150, 5),
        Placed("w:500/h:500/ex:1:no::5/dpr:0.5", 250, 250, at: 76, 2),
        Placed("w:500/h:500/ex:1:no::5/dpr:2", 500, 500, at: 150, 5),
        Placed("w:500/h:500/ex:1:ea:5", 500, 500, at: 295, 200),
        Placed("w:500/h:500/ex:1:ea:5/dpr:0.5", 250, 250, at: 148, 100),
        Placed("w:500/h:500/ex:1:ea:5/dpr:2", 500, 500, at: 295, 200),
        Placed("w:500/h:500/ex:1:no::0.1", 500, 500, at: 150, 50),
        Placed("w:500/h:500/ex:1:no::0.1/dpr:0.5", 250, 250, at: 76, 25),
        Placed("w:500/h:500/ex:1:no::0.1/dpr:2", 500, 500, at: 150, 50),
    ]

    // imgproxy processing/extend_test.go TestExtendAspectRatio: fit into 300 x 600 and extend to
    // its aspect ratio: 200 x 400. At dpr 0.5 the dpr in effect is 0.75 (compensated, as extend
    // is off): the image is 150 x 75 on 150 x 300, a 5 px offset is 4.
    static let extendAspectRatio = [
        Placed("w:300/h:600/exar:1:ce", 200, 400, at: 0, 150),
        Placed("w:300/h:600/exar:1:no", 200, 400, at: 0, 0),
        Placed("w:300/h:600/exar:1:so", 200, 400, at: 0, 300),
        Placed("w:300/h:600/exar:1:ea", 200, 400, at: 0, 150),
        Placed("w:300/h:600/exar:1:we", 200, 400, at: 0, 150),
        Placed("w:300/h:600/exar:1:noea", 200, 400, at: 0, 0),
        Placed("w:300/h:600/exar:1:soea", 200, 400, at: 0, 300),
        Placed("w:300/h:600/exar:1:sowe", 200, 400, at: 0, 300),
        Placed("w:300/h:600/exar:1:nowe", 200, 400, at: 0, 0),
        Placed("w:300/h:600/exar:1:no::5", 200, 400, at: 0, 5),
        Placed("w:300/h:600/exar:1:no::5/dpr:0.5", 150, 300, at: 0, 4),
        Placed("w:300/h:600/exar:1:no::5/dpr:2", 200, 400, at: 0, 5),
        Placed("w:300/h:600/exar:1:ea:5", 200, 400, at: 0, 150),
        Placed("w:300/h:600/exar:1:ea:5/dpr:0.5", 150, 300, at: 0, 113),
        Placed("w:300/h:600/exar:1:ea:5/dpr:2", 200, 400, at: 0, 150),
        Placed("w:300/h:600/exar:1:no::0.1", 200, 400, at: 0, 40),
        Placed("w:300/h:600/exar:1:no::0.1/dpr:0.5", 150, 300, at: 0, 30),
        Placed("w:300/h:600/exar:1:no::0.1/dpr:2", 200, 400, at: 0, 40),
    ]

    @Test(arguments: extend + extendAspectRatio)
    func canvasPlacesTheImageWhereImgproxyPutsIt(_ test: Placed) throws {
        let plan = try Self.plan(test.options)

        #expect((plan.outputWidth, plan.outputHeight) == test.output)
        let canvas = try #require(plan.canvas)
        #expect((canvas.x, canvas.y) == test.spot)
    }
}
