import Testing
import ThumbdTestSupport
@testable import ThumbRequest

/// Colour, effects, metadata, output and handling options, one table per option.
@Suite(.timeLimit(.minutes(2)))
struct OutputOptionTests {
    static let orange = RGBColor(red: 255, green: 128, blue: 0)

    static let background = [
        OptionRow("bg:255:128:0") { $0.background = orange },
        OptionRow("bg:ff8000") { $0.background = orange },
        OptionRow("background:FF8000") { $0.background = orange },
        OptionRow("bg:FFF") { $0.background = .white },
        OptionRow("bg:ff8000/bg:") { $0.background = nil },
    ]

    static let effects = [
        OptionRow("bl:2.5") { $0.blur = 2.5 },
        OptionRow("blur:2/blur:0") { $0.blur = 0 },
        OptionRow("sh:0.7") { $0.sharpen = 0.7 },
        OptionRow("sharpen:1") { $0.sharpen = 1 },
        OptionRow("pix:8") { $0.pixelate = 8 },
        OptionRow("pixelate:8/pixelate:0") { $0.pixelate = 0 },
    ]

    static let watermark = [
        OptionRow("wm:0.5") { $0.watermark = Watermark(opacity: 0.5) },
        OptionRow("wm:1:soea:10:20:0.25") {
            $0.watermark = Watermark(opacity: 1, position: .anchored(.southEast), offsetX: 10, offsetY: 20, scale: 0.25)
        },
        OptionRow("watermark:0.3:re") { $0.watermark = Watermark(opacity: 0.3, position: .replicate) },
        OptionRow("wm:0.5:no:-0.5") { $0.watermark = Watermark(opacity: 0.5, position: .anchored(.north), offsetX: -0.5) },
        OptionRow("wm:0.5:no/wm:0") { $0.watermark = nil },
    ]

    static let metadata = [
        OptionRow("sm:0") { $0.stripMetadata = false },
        OptionRow("strip_metadata:0/strip_metadata:1") { $0.stripMetadata = true },
        OptionRow("kcr:1") { $0.keepCopyright = true },
        OptionRow("keep_copyright:t") { $0.keepCopyright = true },
        OptionRow("scp:f") { $0.stripColorProfile = false },
        OptionRow("strip_color_profile:false") { $0.stripColorProfile = false },
        // imgproxy reads a boolean it does not know as false
        OptionRow("sm:x") { $0.stripMetadata = false },
        OptionRow("kcr:1/keep_copyright:2") { $0.keepCopyright = false },
        OptionRow("scp:yes") { $0.stripColorProfile = false },
    ]

    static let quality = [
        OptionRow("fq:webp:70") { $0.formatQuality = [.webp: 70] },
        OptionRow("format_quality:jpg:80:avif:50") { $0.formatQuality = [.jpeg: 80, .avif: 50] },
        OptionRow("fq:webp:70/fq:avif:40") { $0.formatQuality = [.webp: 70, .avif: 40] },
        // quality 0 takes the format's entry out again
        OptionRow("fq:webp:70/fq:webp:0") { $0.formatQuality = [:] },
        // formats imgproxy knows and thumbd never writes are accepted and moot
        OptionRow("fq:heic:50:webp:60") { $0.formatQuality = [.webp: 60] },
        OptionRow("mb:100000") { $0.maxBytes = 100_000 },
        OptionRow("max_bytes:10/max_bytes:0") { $0.maxBytes = 0 },
    ]

    static let autoquality = [
        // a URL's bounds hold for every format, over the per-format settings (AVIF's 60...65)
        OptionRow("aq:dssim:0.02:70:80:0.002") {
            $0.autoQuality.method = .dssim
            ($0.autoQuality.minQuality, $0.autoQuality.formatMinQuality) = (70, [:])
            ($0.autoQuality.maxQuality, $0.autoQuality.formatMaxQuality) = (80, [:])
        },
        OptionRow("autoquality:size:10240") { ($0.autoQuality.method, $0.autoQuality.target) = (.size, 10240) },
        OptionRow("aq:dssim:0.01:::0.001") {
            ($0.autoQuality.method, $0.autoQuality.target, $0.autoQuality.allowedError) = (.dssim, 0.01, 0.001)
        },
        OptionRow("aq::0.01") { $0.autoQuality.target = 0.01 },
        OptionRow("aq:dssim/aq:none") { $0.autoQuality.method = .none },
    ]

    @Test(arguments: autoquality)
    func autoqualityParses(_ row: OptionRow) throws { try OptionTable.expectParses(row) }

    @Test func autoqualityBoundsAreTheFormatsOwnUnlessTheURLGivesThem() throws {
        let settings = try OptionTable.parse("aq:dssim").autoQuality
        #expect(settings.qualities(for: .jpeg) == 70...80)
        #expect(settings.qualities(for: .avif) == 60...65)
        #expect(try OptionTable.parse("aq:dssim::50:90").autoQuality.qualities(for: .avif) == 50...90)
        // a minimum above the maximum searches the maximum alone
        #expect(try OptionTable.parse("aq:dssim::90:80").autoQuality.qualities(for: .webp) == 80...80)
    }

    static let format = [
        OptionRow("skp:gif") { $0.skipProcessing = [.gif] },
        OptionRow("skip_processing:jpg:png") { $0.skipProcessing = [.jpeg, .png] },
        OptionRow("skp:svg:gif") { $0.skipProcessing = [.gif] },
        OptionRow("skp:gif/skp:png") { $0.skipProcessing = [.gif, .png] },
    ]

    static let handling = [
        OptionRow("raw:1") { $0.raw = true },
        OptionRow("cb:v2") { $0.cacheBuster = "v2" },
        OptionRow("cachebuster:abc/cb:") { $0.cacheBuster = "" },
        OptionRow("exp:1700000000") { $0.expires = 1_700_000_000 },
        OptionRow("expires:1700000000/expires:0") { $0.expires = nil },
        OptionRow("exp:-5") { $0.expires = nil },
        OptionRow("fn:cat") { $0.filename = "cat" },
        OptionRow("filename:my%20cat") { $0.filename = "my cat" },
        // base64url("chat noir.jpg")
        OptionRow("fn:Y2hhdCBub2lyLmpwZw:1") { $0.filename = "chat noir.jpg" },
        OptionRow("fn:Y2hhdCBub2lyLmpwZw:0") { $0.filename = "Y2hhdCBub2lyLmpwZw" },
        OptionRow("fn:cat/fn:") { $0.filename = nil },
        OptionRow("att:1") { $0.returnAttachment = true },
        OptionRow("return_attachment:true") { $0.returnAttachment = true },
        OptionRow("raw:1/raw:x") { $0.raw = false },
        OptionRow("filename:a:maybe") { $0.filename = "a" },
        OptionRow("att:1/att:x") { $0.returnAttachment = false },
    ]

    @Test(arguments: background + effects + watermark + metadata)
    func colourAndMetadataOptionParses(_ row: OptionRow) throws { try OptionTable.expectParses(row) }

    @Test(arguments: quality + format + handling)
    func outputOptionParses(_ row: OptionRow) throws { try OptionTable.expectParses(row) }

    static let invalid = [
        // bg
        BadOptionRow("bg:256:0:0", #"invalid bg argument "256": expected a whole number from 0 to 255"#),
        BadOptionRow("bg:zzzzzz", #"invalid bg argument "zzzzzz": expected a hex colour"#),
        BadOptionRow("bg:#ffffff", ##"invalid bg argument "#ffffff""##),
        BadOptionRow("background:1:2", "background takes 1 or 3 arguments, got 2"),
        BadOptionRow("bg:1::2", "bg: R:G:B needs all three channels"),
        // bl, sh, pix
        BadOptionRow("bl:-1", #"invalid bl argument "-1""#),
        BadOptionRow("blur:x", #"invalid blur argument "x""#),
        BadOptionRow("sh:-0.5", #"invalid sh argument "-0.5""#),
        BadOptionRow("pix:-1", #"invalid pix argument "-1""#),
        BadOptionRow("pixelate:1.5", #"invalid pixelate argument "1.5""#),
        // wm
        BadOptionRow("wm:2", #"invalid wm opacity "2": expected a number from 0 to 1"#),
        BadOptionRow("wm:0.5:sm", #"invalid wm position "sm": expected one of ce, no, so, ea, we, noea, nowe, soea, sowe, re"#),
        BadOptionRow("wm:0.5:fp", #"invalid wm position "fp""#),
        BadOptionRow("watermark:0.5:no:x", #"invalid watermark offset "x""#),
        BadOptionRow("wm:0.5:no:0:0:-1", #"invalid wm scale "-1""#),
        BadOptionRow("wm:0.5:no:0:0:1:1", "wm takes 1 to 5 arguments, got 6"),
        // sm, kcr, scp
        // q, fq, mb
        BadOptionRow("q:-1", #"invalid q argument "-1""#),
        BadOptionRow("quality:abc", #"invalid quality argument "abc""#),
        BadOptionRow("fq:webp", #"fq takes format:quality pairs: "webp" has no quality"#),
        BadOptionRow("format_quality:jpg:80:png", #"format_quality takes format:quality pairs: "png" has no quality"#),
        BadOptionRow("fq:bmp2:80", #"invalid fq format "bmp2""#),
        BadOptionRow("fq:webp:101", #"invalid fq quality "101""#),
        BadOptionRow("mb:-1", #"invalid mb argument "-1""#),
        BadOptionRow("max_bytes:x", #"invalid max_bytes argument "x""#),
        // aq
        BadOptionRow("aq:ml", "aq method ml needs a neural network model, which thumbd does not run"),
        BadOptionRow("aq:fast", #"invalid aq method "fast": expected none, size, dssim"#),
        BadOptionRow("aq:dssim:-1", #"invalid aq target "-1""#),
        BadOptionRow("aq:dssim:0", #"invalid aq target "0""#),
        BadOptionRow("autoquality:dssim:0.02:0", #"invalid autoquality min_quality "0""#),
        BadOptionRow("aq:dssim:0.02:70:101", #"invalid aq max_quality "101""#),
        BadOptionRow("aq:dssim:0.02:70:80:2", #"invalid aq allowed_error "2""#),
        BadOptionRow("aq:dssim:0.02:70:80:0.002:1", "aq takes 1 to 5 arguments, got 6"),
        // f, skp
        BadOptionRow("f:heic", #"invalid f format "heic": expected one of jpg, png, webp, gif, avif, jxl"#),
        BadOptionRow("format:x:y", "format takes 1 argument, got 2"),
        BadOptionRow("skp:xyz", #"invalid skp format "xyz""#),
        // raw, cb, exp, fn, att
        BadOptionRow("cb:a:b", "cb takes 1 argument, got 2"),
        BadOptionRow("exp:abc", #"invalid exp argument "abc": expected a unix timestamp"#),
        BadOptionRow("expires:1.5", #"invalid expires argument "1.5""#),
        BadOptionRow("fn:a%ZZ", #"invalid fn argument "a%ZZ": expected a percent-escaped UTF-8 name"#),
        BadOptionRow("fn:a%0Ab", #"invalid fn argument "a%0Ab""#),
        BadOptionRow("fn:!!!:1", #"invalid fn argument "!!!": expected base64url of a UTF-8 name"#),
        BadOptionRow("fn:a:1:2", "fn takes 1 to 2 arguments, got 3"),
        // not thumbd's
        BadOptionRow("eth:1", "option eth is not supported"),
        BadOptionRow("pr:zz", #"unknown preset "zz""#),
        // imgproxy requires these arguments: an empty one is as invalid as a bad one
        BadOptionRow("wm:0.5:no/wm::so", #"invalid wm opacity """#),
        BadOptionRow("wm::so", #"invalid wm opacity """#),
        BadOptionRow("q:50/q:", #"invalid q argument """#),
        BadOptionRow("f:webp/f:", #"invalid f format """#),
        BadOptionRow("fq:webp:", #"invalid fq quality """#),
        BadOptionRow("fq::50", #"invalid fq format """#),
        BadOptionRow("skp:", #"invalid skp format """#),
        BadOptionRow("bl:", #"invalid bl argument """#),
        BadOptionRow("exp:", #"invalid exp argument """#),
    ]

    @Test(arguments: invalid)
    func invalidArgumentIsRefusedNamingTheOption(_ row: BadOptionRow) {
        OptionTable.expectRefused(row)
    }
}
