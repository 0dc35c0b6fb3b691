import Testing
import ThumbdTestSupport
@testable import ThumbRequest

/// The geometry options, one table per option: what each spelling sets, and which arguments are
/// refused with a message naming the option as spelt and the argument.
@Suite(.timeLimit(.minutes(2)))
struct GeometryOptionTests {
    static let resize = [
        OptionRow("rs:fill-down:300:200") { $0.resizingType = .fillDown; $0.width = 300; $0.height = 200 },
        OptionRow("rs:auto") { $0.resizingType = .auto },
        OptionRow("rs:fit:300:200:1:1") { $0.width = 300; $0.height = 200; $0.enlarge = true; $0.extend = .center },
        OptionRow("rs:fit:300:200:0:1:no:5:6") {
            $0.width = 300; $0.height = 200; $0.extend = Gravity(anchor: .north, offsetX: 5, offsetY: 6)
        },
        OptionRow("resize:force:::t:1:fp:0.2:0.8") {
            $0.resizingType = .force; $0.enlarge = true
            $0.extend = Gravity(anchor: .focusPoint, offsetX: 0.2, offsetY: 0.8)
        },
        OptionRow("rs:fill:300:200/rs:::::::") { $0.resizingType = .fill; $0.width = 300; $0.height = 200 },
        OptionRow("rs:fit:1:1:0:1/rs:::::0") { $0.width = 1; $0.height = 1 },
    ]

    static let size = [
        OptionRow("s:300:200:1:1:soea") {
            $0.width = 300; $0.height = 200; $0.enlarge = true; $0.extend = Gravity(anchor: .southEast)
        },
        OptionRow("size::150") { $0.height = 150 },
    ]

    static let resizingType = [
        OptionRow("rt:fill-down") { $0.resizingType = .fillDown },
        OptionRow("resizing_type:auto") { $0.resizingType = .auto },
    ]

    static let minimumSizes = [
        OptionRow("mw:100") { $0.minWidth = 100 },
        OptionRow("min-width:16384") { $0.minWidth = 16_384 },
        OptionRow("mh:50") { $0.minHeight = 50 },
        OptionRow("min-height:0") { $0.minHeight = 0 },
    ]

    static let zoom = [
        OptionRow("z:2") { $0.zoomX = 2; $0.zoomY = 2 },
        OptionRow("zoom:1.5:0.5") { $0.zoomX = 1.5; $0.zoomY = 0.5 },
    ]

    static let dpr = [
        OptionRow("dpr:2") { $0.dpr = 2 },
        OptionRow("dpr:1.5") { $0.dpr = 1.5 },
        OptionRow("dpr:8") { $0.dpr = 8 },
    ]

    static let extend = [
        OptionRow("ex:1") { $0.extend = .center },
        OptionRow("extend:1:no:10:20") { $0.extend = Gravity(anchor: .north, offsetX: 10, offsetY: 20) },
        OptionRow("ex:t:fp:0.5:0.25") { $0.extend = Gravity(anchor: .focusPoint, offsetX: 0.5, offsetY: 0.25) },
        OptionRow("ex:0") { $0.extend = nil },
        // imgproxy options/parser/parse.go parseExtend: the gravity stays while extending is off
        OptionRow("ex:1:so/ex:0") { $0.extend = Gravity(anchor: .south); $0.extend = nil },
        OptionRow("ex::so") { $0.extend = Gravity(anchor: .south); $0.extend = nil },
        OptionRow("ex:0:so/ex:1") { $0.extend = Gravity(anchor: .south) },
        OptionRow("exar:0:we/exar:1") { $0.extendAspectRatio = Gravity(anchor: .west) },
        OptionRow("exar:1") { $0.extendAspectRatio = .center },
        OptionRow("extend_ar:1:we") { $0.extendAspectRatio = Gravity(anchor: .west) },
        OptionRow("extend_aspect_ratio:true:ea:3:4") {
            $0.extendAspectRatio = Gravity(anchor: .east, offsetX: 3, offsetY: 4)
        },
        // imgproxy reads a boolean it does not know, an empty one included, as false
        OptionRow("ex:1:no/ex::so") { $0.extend = Gravity(anchor: .south); $0.extend = nil },
        OptionRow("ex:1/ex:maybe") { $0.extend = nil },
        OptionRow("exar:1/extend_ar:yes") { $0.extendAspectRatio = nil },
        OptionRow("rs:fit:1:2:x") { $0.width = 1; $0.height = 2 },
        OptionRow("el:1/enlarge:2") { $0.enlarge = false },
    ]

    static let gravity = [
        OptionRow("g:sm") { $0.gravity = Gravity(anchor: .smart) },
        OptionRow("gravity:fp:0.25:0.75") { $0.gravity = Gravity(anchor: .focusPoint, offsetX: 0.25, offsetY: 0.75) },
        OptionRow("g:fp:0:1") { $0.gravity = Gravity(anchor: .focusPoint, offsetX: 0, offsetY: 1) },
        // imgproxy keeps compass offsets that are not given again
        OptionRow("g:no:10:20/g:so") { $0.gravity = Gravity(anchor: .south, offsetX: 10, offsetY: 20) },
        // but not across kinds: a focus point's shares are not pixels
        // imgproxy options/parser/parse.go parseGravity: offsets not given stay, a focus point's too
        OptionRow("g:fp:0.5:0.5/g:no") { $0.gravity = Gravity(anchor: .north, offsetX: 0.5, offsetY: 0.5) },
        OptionRow("g:no:5:6/g:sm/g:no") { $0.gravity = Gravity(anchor: .north) },
    ]

    static let crop = [
        OptionRow("c:100:50") { $0.crop = Crop(width: 100, height: 50) },
        OptionRow("crop:0.5:0.5:nowe") { $0.crop = Crop(width: 0.5, height: 0.5, gravity: Gravity(anchor: .northWest)) },
        OptionRow("c:100:50:sm") { $0.crop = Crop(width: 100, height: 50, gravity: Gravity(anchor: .smart)) },
        OptionRow("c:100:50:fp:0.1:0.9") {
            $0.crop = Crop(width: 100, height: 50, gravity: Gravity(anchor: .focusPoint, offsetX: 0.1, offsetY: 0.9))
        },
        OptionRow("c:100:50:no:3:4") {
            $0.crop = Crop(width: 100, height: 50, gravity: Gravity(anchor: .north, offsetX: 3, offsetY: 4))
        },
        OptionRow("c:100") { $0.crop = Crop(width: 100, height: 0) },
    ]

    static let trim = [
        OptionRow("t:10") { $0.trim = Trim(threshold: 10) },
        OptionRow("trim:5.5:FF00FF:1:0") {
            $0.trim = Trim(threshold: 5.5, color: RGBColor(red: 255, green: 0, blue: 255), equalHorizontal: true)
        },
        OptionRow("t:10:fff") { $0.trim = Trim(threshold: 10, color: .white) },
        OptionRow("t:10::t:t") { $0.trim = Trim(threshold: 10, equalHorizontal: true, equalVertical: true) },
        OptionRow("t:10:000:1/t:20") { $0.trim = Trim(threshold: 20, equalHorizontal: true) },
        // as imgproxy: no threshold turns trimming off
        OptionRow("t:10/t:") { $0.trim = nil },
        OptionRow("t:10:ff00ff:maybe") { $0.trim = Trim(threshold: 10, color: RGBColor(red: 255, green: 0, blue: 255)) },
    ]

    static let padding = [
        OptionRow("pd:10") { $0.padding = Padding(top: 10, right: 10, bottom: 10, left: 10) },
        OptionRow("pd:10:20") { $0.padding = Padding(top: 10, right: 20, bottom: 10, left: 20) },
        OptionRow("pd:1:2:3") { $0.padding = Padding(top: 1, right: 2, bottom: 3, left: 2) },
        OptionRow("padding:1:2:3:4") { $0.padding = Padding(top: 1, right: 2, bottom: 3, left: 4) },
        OptionRow("pd:10/pd::5") { $0.padding = Padding(top: 10, right: 5, bottom: 10, left: 5) },
    ]

    static let orientation = [
        OptionRow("ar:0") { $0.autoRotate = false },
        OptionRow("auto_rotate:0/auto_rotate:1") { $0.autoRotate = true },
        OptionRow("rot:90") { $0.rotate = 90 },
        OptionRow("rotate:180") { $0.rotate = 180 },
        OptionRow("rot:270") { $0.rotate = 270 },
        OptionRow("rot:90/rot:0") { $0.rotate = 0 },
        // any multiple of 90, as imgproxy takes it
        OptionRow("rot:360") { $0.rotate = 0 },
        OptionRow("rot:-90") { $0.rotate = 270 },
        OptionRow("rot:450") { $0.rotate = 90 },
        OptionRow("fl:1") { $0.flipHorizontal = true },
        OptionRow("flip:0:1") { $0.flipVertical = true },
        OptionRow("fl:1/fl::t") { $0.flipHorizontal = true; $0.flipVertical = true },
        OptionRow("ar:2") { $0.autoRotate = false },
        OptionRow("fl:1:1/fl:x") { $0.flipVertical = true },
    ]

    @Test(arguments: resize + size + resizingType + minimumSizes + zoom + dpr)
    func sizeOptionParses(_ row: OptionRow) throws { try OptionTable.expectParses(row) }

    @Test(arguments: extend + gravity + crop)
    func placementOptionParses(_ row: OptionRow) throws { try OptionTable.expectParses(row) }

    @Test(arguments: trim + padding + orientation)
    func edgeAndOrientationOptionParses(_ row: OptionRow) throws { try OptionTable.expectParses(row) }

    static let invalid = [
        // rs, s, rt
        BadOptionRow("rs:crop", #"invalid rs resizing type "crop": expected one of fit, fill, fill-down, force, auto"#),
        BadOptionRow("rs:fit:-1", #"invalid rs argument "-1""#),
        BadOptionRow("rs:fit:1:2:0:1:sm", #"invalid rs gravity type "sm""#),
        BadOptionRow("rs:fit:1:2:0:1:ce:0:0:9", "rs takes 1 to 8 arguments, got 9"),
        BadOptionRow("s:1:2:0:1:north", #"invalid s gravity type "north""#),
        BadOptionRow("s:1:2:0:1:ce:0:0:9", "s takes 1 to 7 arguments, got 8"),
        BadOptionRow("rt:fit:fill", "rt takes 1 argument, got 2"),
        // w, h, mw, mh
        BadOptionRow("w:1.5", #"invalid w argument "1.5""#),
        BadOptionRow("h:16385", #"invalid h argument "16385""#),
        BadOptionRow("mw:-1", #"invalid mw argument "-1": expected a whole number from 0 to 16384"#),
        BadOptionRow("min-height:x", #"invalid min-height argument "x""#),
        // z, dpr
        BadOptionRow("z:0", #"invalid z argument "0": expected a number above 0 up to 16384"#),
        BadOptionRow("zoom:-1", #"invalid zoom argument "-1""#),
        BadOptionRow("z:1:abc", #"invalid z argument "abc""#),
        BadOptionRow("z:1:2:3", "z takes 1 to 2 arguments, got 3"),
        BadOptionRow("dpr:0", #"invalid dpr argument "0": expected a number above 0 up to 8"#),
        BadOptionRow("dpr:9", #"invalid dpr argument "9""#),
        BadOptionRow("dpr:nan", #"invalid dpr argument "nan""#),
        BadOptionRow("dpr:inf", #"invalid dpr argument "inf""#),
        // el, ex, exar
        BadOptionRow("ex:1:sm", #"invalid ex gravity type "sm": expected one of ce, no, so, ea, we, noea, nowe, soea, sowe, fp"#),
        BadOptionRow("ex:1:no:x", #"invalid ex offset "x""#),
        BadOptionRow("ex:1:fp:2:0", #"invalid ex focus point "2": expected a number from 0 to 1"#),
        BadOptionRow("ex:1:fp:0.5", "ex: gravity fp takes x and y, each from 0 to 1"),
        BadOptionRow("ex:1:no:1:2:3", "ex takes 1 to 4 arguments, got 5"),
        BadOptionRow("exar:1:sm", #"invalid exar gravity type "sm""#),
        // g
        BadOptionRow("g:north", #"invalid g type "north": expected one of ce, no, so, ea, we, noea, nowe, soea, sowe, sm, fp"#),
        BadOptionRow("g:no:x", #"invalid g offset "x""#),
        BadOptionRow("g:no:16385", #"invalid g offset "16385""#),
        BadOptionRow("g:sm:1", "g: gravity sm takes no offsets"),
        BadOptionRow("g:fp:0.5", "g: gravity fp takes x and y"),
        BadOptionRow("g:fp::0.5", "g: gravity fp takes x and y"),
        BadOptionRow("gravity:fp:1.5:0", #"invalid gravity focus point "1.5""#),
        BadOptionRow("g:fp:0:-0.1", #"invalid g focus point "-0.1""#),
        BadOptionRow("g:no:1:2:3", "g takes 1 to 3 arguments, got 4"),
        // c
        BadOptionRow("c:abc", #"invalid c width "abc""#),
        BadOptionRow("c:-1:1", #"invalid c width "-1""#),
        BadOptionRow("crop:1:x", #"invalid crop height "x""#),
        BadOptionRow("c:1:1:north", #"invalid c gravity type "north""#),
        BadOptionRow("c:1:1:no:1:2:3", "c takes 1 to 5 arguments, got 6"),
        // t
        BadOptionRow("t:abc", #"invalid t threshold "abc""#),
        BadOptionRow("trim:-1", #"invalid trim threshold "-1""#),
        BadOptionRow("t:10:red", #"invalid t colour "red": expected a hex colour"#),
        BadOptionRow("t:10:ff00ff:1:1:1", "t takes 1 to 4 arguments, got 5"),
        // pd
        BadOptionRow("pd:-1", #"invalid pd argument "-1""#),
        BadOptionRow("padding:1:a", #"invalid padding argument "a""#),
        BadOptionRow("pd:1:2:3:4:5", "pd takes 1 to 4 arguments, got 5"),
        // ar, rot, fl
        BadOptionRow("rot:45", #"invalid rot argument "45": expected a multiple of 90"#),
        BadOptionRow("rotate:abc", #"invalid rotate argument "abc""#),
        BadOptionRow("rot:90.0", #"invalid rot argument "90.0""#),
        BadOptionRow("flip:1:1:1", "flip takes 1 to 2 arguments, got 3"),
        // imgproxy requires these arguments: an empty one is as invalid as a bad one
        BadOptionRow("rt:force/rt:", #"invalid rt resizing type """#),
        BadOptionRow("z:0.5:", #"invalid z argument """#),
        BadOptionRow("z:2/z::3", #"invalid z argument """#),
        BadOptionRow("dpr:0.5/dpr:", #"invalid dpr argument """#),
        BadOptionRow("g:no:10:20/g::5", #"invalid g type """#),
        BadOptionRow("c:100:50/c::80", #"invalid c width """#),
        BadOptionRow("c:100:50:", #"invalid c gravity type """#),
        BadOptionRow("ex:1:", #"invalid ex gravity type """#),
        BadOptionRow("w:", #"invalid w argument """#),
        BadOptionRow("rot:", #"invalid rot argument """#),
    ]

    @Test(arguments: invalid)
    func invalidArgumentIsRefusedNamingTheOption(_ row: BadOptionRow) {
        OptionTable.expectRefused(row)
    }
}
