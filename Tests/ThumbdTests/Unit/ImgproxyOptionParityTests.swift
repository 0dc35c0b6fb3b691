import Foundation
import Testing
import ThumbImaging
import ThumbdTestSupport
@testable import ThumbRequest
@testable import ThumbRuntime
@testable import thumbd

/// imgproxy's own parsing tests, case by case, read by thumbd: the same options, the same source,
/// the same refusal (404 "Invalid URL", 403 for a signature). Cases for settings thumbd does not
/// have (URL_REPLACEMENTS, ARGUMENTS_SEPARATOR, BASE64_URL_INCLUDES_FILENAME, PATH_PREFIX,
/// ALLOWED_PROCESSING_OPTIONS) and for client features (Accept, client hints) are not here.
@Suite(.timeLimit(.minutes(2)))
struct ImgproxyOptionParityTests {
    static let ipsum = "http://images.dev/lorem/ipsum.jpg"
    static let ipsumWithQuery = "http://images.dev/lorem/ipsum.jpg?param=value"

    static func parse(_ path: String, baseURL: String? = nil, presets: String = "",
                      onlyPresets: Bool = false) throws -> ThumbnailRequest {
        let options = OptionParser(presets: try Presets(parsing: presets), onlyPresets: onlyPresets)
        return try RequestPathParser(verifier: .insecure, baseURL: baseURL, options: options,
                                     policy: Renderer.encodePolicy)
            .parse(rawPath: "/insecure\(path)")
    }

    static func base64(_ url: String) -> String { Base64URL.encode(Array(url.utf8)) }

    /// Go's url.PathEscape: everything but unreserved characters and `$&+,:;=@` escaped.
    static func pathEscape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn:
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~$&+,:;=@"))!
    }

    // MARK: Sources

    struct Source: Sendable, CustomTestStringConvertible {
        let imgproxyTest: String
        let path: String
        var baseURL: String?
        let url: String
        let format: ImageFormat?
        var testDescription: String { imgproxyTest }
    }

    static let sources: [Source] = [
        // imgproxy options/parser/processing_options_test.go TestParseBase64URL
        Source(imgproxyTest: "TestParseBase64URL", path: "/size:100:100/\(base64(ipsumWithQuery)).png",
               url: ipsumWithQuery, format: .png),
        // imgproxy options/parser/processing_options_test.go TestParseBase64URLWithoutExtension
        Source(imgproxyTest: "TestParseBase64URLWithoutExtension", path: "/size:100:100/\(base64(ipsumWithQuery))",
               url: ipsumWithQuery, format: nil),
        // imgproxy options/parser/processing_options_test.go TestParseBase64URLWithBase
        Source(imgproxyTest: "TestParseBase64URLWithBase", path: "/size:100:100/\(base64("lorem/ipsum.jpg?param=value")).png",
               baseURL: "http://images.dev/", url: ipsumWithQuery, format: .png),
        // imgproxy options/parser/processing_options_test.go TestParsePlainURL
        Source(imgproxyTest: "TestParsePlainURL", path: "/size:100:100/plain/\(ipsum)@png", url: ipsum, format: .png),
        // imgproxy options/parser/processing_options_test.go TestParsePlainURLWithoutExtension
        Source(imgproxyTest: "TestParsePlainURLWithoutExtension", path: "/size:100:100/plain/\(ipsum)",
               url: ipsum, format: nil),
        // imgproxy options/parser/processing_options_test.go TestParsePlainURLEscaped
        Source(imgproxyTest: "TestParsePlainURLEscaped", path: "/size:100:100/plain/\(pathEscape(ipsumWithQuery))@png",
               url: ipsumWithQuery, format: .png),
        // imgproxy options/parser/processing_options_test.go TestParsePlainURLWithBase
        Source(imgproxyTest: "TestParsePlainURLWithBase", path: "/size:100:100/plain/lorem/ipsum.jpg@png",
               baseURL: "http://images.dev/", url: ipsum, format: .png),
        // imgproxy options/parser/processing_options_test.go TestParsePlainURLEscapedWithBase
        Source(imgproxyTest: "TestParsePlainURLEscapedWithBase",
               path: "/size:100:100/plain/\(pathEscape("lorem/ipsum.jpg?param=value"))@png",
               baseURL: "http://images.dev/", url: ipsumWithQuery, format: .png),
        // imgproxy options/parser/url.go decodePlainURL, decodeBase64URL: an empty extension names no format
        Source(imgproxyTest: "decodePlainURL empty format", path: "/w:1/plain/\(ipsum)@", url: ipsum, format: nil),
        Source(imgproxyTest: "decodeBase64URL empty format", path: "/w:1/\(base64(ipsum)).", url: ipsum, format: nil),
    ]

    @Test(arguments: sources)
    func sourceIsReadAsImgproxyReadsIt(_ source: Source) throws {
        let request = try Self.parse(source.path, baseURL: source.baseURL)

        #expect(request.sourceURL == source.url)
        #expect(request.options.format == source.format)
    }

    // MARK: Options

    struct Row: Sendable, CustomTestStringConvertible {
        let imgproxyTest: String
        let options: String
        var presets = ""
        let expected: ProcessingOptions
        var testDescription: String { imgproxyTest }
    }

    static let rows: [Row] = [
        // imgproxy options/parser/processing_options_test.go TestParsePathFormat
        Row(imgproxyTest: "TestParsePathFormat", options: "format:webp", expected: .with { $0.format = .webp }),
        // imgproxy options/parser/processing_options_test.go TestParsePathResize
        Row(imgproxyTest: "TestParsePathResize", options: "resize:fill:100:200:1", expected: .with {
            $0.resizingType = .fill; $0.width = 100; $0.height = 200; $0.enlarge = true
        }),
        // imgproxy options/parser/processing_options_test.go TestParsePathResizingType
        Row(imgproxyTest: "TestParsePathResizingType", options: "resizing_type:fill",
            expected: .with { $0.resizingType = .fill }),
        // imgproxy options/parser/processing_options_test.go TestParsePathSize
        Row(imgproxyTest: "TestParsePathSize", options: "size:100:200:1", expected: .with {
            $0.width = 100; $0.height = 200; $0.enlarge = true
        }),
        // imgproxy options/parser/processing_options_test.go TestParsePathWidth
        Row(imgproxyTest: "TestParsePathWidth", options: "width:100", expected: .with { $0.width = 100 }),
        // imgproxy options/parser/processing_options_test.go TestParsePathHeight
        Row(imgproxyTest: "TestParsePathHeight", options: "height:100", expected: .with { $0.height = 100 }),
        // imgproxy options/parser/processing_options_test.go TestParsePathEnlarge
        Row(imgproxyTest: "TestParsePathEnlarge", options: "enlarge:1", expected: .with { $0.enlarge = true }),
        // imgproxy options/parser/processing_options_test.go TestParsePathExtend
        Row(imgproxyTest: "TestParsePathExtend", options: "extend:1:so:10:20",
            expected: .with { $0.extend = Gravity(anchor: .south, offsetX: 10, offsetY: 20) }),
        // imgproxy options/parser/processing_options_test.go TestParsePathGravity
        Row(imgproxyTest: "TestParsePathGravity", options: "gravity:soea",
            expected: .with { $0.gravity = Gravity(anchor: .southEast) }),
        // imgproxy options/parser/processing_options_test.go TestParsePathGravityFocusPoint
        Row(imgproxyTest: "TestParsePathGravityFocusPoint", options: "gravity:fp:0.5:0.75",
            expected: .with { $0.gravity = Gravity(anchor: .focusPoint, offsetX: 0.5, offsetY: 0.75) }),
        // imgproxy options/parser/processing_options_test.go TestParsePathCrop
        Row(imgproxyTest: "TestParsePathCrop", options: "crop:100:200",
            expected: .with { $0.crop = Crop(width: 100, height: 200) }),
        // imgproxy options/parser/processing_options_test.go TestParsePathCropGravity
        Row(imgproxyTest: "TestParsePathCropGravity", options: "crop:100:200:nowe:10:20", expected: .with {
            $0.crop = Crop(width: 100, height: 200, gravity: Gravity(anchor: .northWest, offsetX: 10, offsetY: 20))
        }),
        // imgproxy options/parser/processing_options_test.go TestParsePathQuality
        Row(imgproxyTest: "TestParsePathQuality", options: "quality:55", expected: .with { $0.quality = 55 }),
        // imgproxy options/parser/processing_options_test.go TestParsePathBackground
        Row(imgproxyTest: "TestParsePathBackground", options: "background:128:129:130",
            expected: .with { $0.background = RGBColor(red: 128, green: 129, blue: 130) }),
        // imgproxy options/parser/processing_options_test.go TestParsePathBackgroundHex
        Row(imgproxyTest: "TestParsePathBackgroundHex", options: "background:ffddee",
            expected: .with { $0.background = RGBColor(red: 0xFF, green: 0xDD, blue: 0xEE) }),
        // imgproxy options/parser/processing_options_test.go TestParsePathBackgroundDisable
        Row(imgproxyTest: "TestParsePathBackgroundDisable", options: "background:fff/background:",
            expected: ProcessingOptions()),
        // imgproxy options/parser/processing_options_test.go TestParsePathBlur
        Row(imgproxyTest: "TestParsePathBlur", options: "blur:0.2", expected: .with { $0.blur = 0.2 }),
        // imgproxy options/parser/processing_options_test.go TestParsePathSharpen
        Row(imgproxyTest: "TestParsePathSharpen", options: "sharpen:0.2", expected: .with { $0.sharpen = 0.2 }),
        // imgproxy options/parser/processing_options_test.go TestParsePathDpr
        Row(imgproxyTest: "TestParsePathDpr", options: "dpr:2", expected: .with { $0.dpr = 2 }),
        // imgproxy options/parser/processing_options_test.go TestParsePathWatermark
        Row(imgproxyTest: "TestParsePathWatermark", options: "watermark:0.5:soea:10:20:0.6", expected: .with {
            $0.watermark = Watermark(opacity: 0.5, position: .anchored(.southEast), offsetX: 10, offsetY: 20, scale: 0.6)
        }),
        // imgproxy options/parser/processing_options_test.go TestParsePathPreset
        Row(imgproxyTest: "TestParsePathPreset", options: "preset:test1:test2",
            presets: "test1=resizing_type:fill, test2=blur:0.2/quality:50",
            expected: .with { $0.resizingType = .fill; $0.blur = 0.2; $0.quality = 50 }),
        // imgproxy options/parser/processing_options_test.go TestParsePathPresetDefault
        Row(imgproxyTest: "TestParsePathPresetDefault", options: "quality:70",
            presets: "default=resizing_type:fill/blur:0.2/quality:50",
            expected: .with { $0.resizingType = .fill; $0.blur = 0.2; $0.quality = 70 }),
        // imgproxy options/parser/processing_options_test.go TestParsePathPresetLoopDetection
        Row(imgproxyTest: "TestParsePathPresetLoopDetection", options: "preset:test1",
            presets: "test1=resizing_type:fill/preset:test2, test2=blur:0.2/preset:test1",
            expected: .with { $0.resizingType = .fill; $0.blur = 0.2 }),
        // imgproxy options/parser/processing_options_test.go TestParsePathCachebuster
        Row(imgproxyTest: "TestParsePathCachebuster", options: "cachebuster:123", expected: .with { $0.cacheBuster = "123" }),
        // imgproxy options/parser/processing_options_test.go TestParsePathStripMetadata
        Row(imgproxyTest: "TestParsePathStripMetadata", options: "strip_metadata:true",
            expected: .with { $0.stripMetadata = true }),
        // imgproxy options/parser/processing_options_test.go TestParsePathClientHintsRedefine (the URL's part)
        Row(imgproxyTest: "TestParsePathClientHintsRedefine", options: "width:150/dpr:3.0",
            expected: .with { $0.width = 150; $0.dpr = 3 }),
        // imgproxy options/parser/processing_options_test.go TestParseSkipProcessing
        Row(imgproxyTest: "TestParseSkipProcessing", options: "skp:jpg:png",
            expected: .with { $0.skipProcessing = [.jpeg, .png] }),
        // imgproxy options/parser/processing_options_test.go TestParseExpires
        Row(imgproxyTest: "TestParseExpires", options: "exp:32503669200", expected: .with { $0.expires = 32_503_669_200 }),
        // imgproxy options/parser/parse.go parseBool: strconv.ParseBool, anything else false
        Row(imgproxyTest: "parseBool true spellings", options: "el:T/ar:0/sm:TRUE/kcr:True/scp:f/att:t", expected: .with {
            $0.enlarge = true; $0.autoRotate = false; $0.keepCopyright = true; $0.stripColorProfile = false
            $0.returnAttachment = true
        }),
        Row(imgproxyTest: "parseBool other spellings", options: "el:1/el:yes/ar:on/sm:/fl:1:1/fl:Y:", expected: .with {
            $0.autoRotate = false; $0.stripMetadata = false; $0.flipVertical = true
        }),
    ]

    @Test(arguments: rows)
    func optionsAreReadAsImgproxyReadsThem(_ row: Row) throws {
        let request = try Self.parse("/\(row.options)/plain/\(Self.ipsum)", presets: row.presets)

        #expect(request.options == row.expected)
        #expect(request.sourceURL == Self.ipsum)
    }

    // imgproxy options/parser/processing_options_test.go TestParseExpiresExpired: imgproxy refuses
    // it while parsing; thumbd when it answers (RequestHandler), with imgproxy's 404 either way
    @Test func anExpiredTimeIsReadForTheAnswerToRefuse() throws {
        let request = try Self.parse("/exp:1609448400/plain/\(Self.ipsum)")

        #expect(request.options.expiresAt == 1_609_448_400)
        #expect(RequestFailure.expired.status == 404)
    }

    // MARK: Refusals

    struct Refusal: Sendable, CustomTestStringConvertible {
        let imgproxyTest: String
        let path: String
        var status = 404
        var testDescription: String { imgproxyTest }
    }

    static let refusals: [Refusal] = [
        // imgproxy options/parser/processing_options_test.go TestParsePathExtendSmartGravity
        Refusal(imgproxyTest: "TestParsePathExtendSmartGravity", path: "/extend:1:sm/plain/\(ipsum)"),
        // imgproxy options/parser/processing_options_test.go TestParsePathExtendReplicateGravity
        Refusal(imgproxyTest: "TestParsePathExtendReplicateGravity", path: "/extend:1:re/plain/\(ipsum)"),
        // imgproxy options/parser/processing_options_test.go TestParsePathGravityReplicate
        Refusal(imgproxyTest: "TestParsePathGravityReplicate", path: "/gravity:re/plain/\(ipsum)"),
        // imgproxy options/parser/processing_options_test.go TestParsePathCropGravityReplicate
        Refusal(imgproxyTest: "TestParsePathCropGravityReplicate", path: "/crop:100:200:re/plain/\(ipsum)"),
        // imgproxy options/parser/processing_options_test.go TestParseSkipProcessingInvalid
        Refusal(imgproxyTest: "TestParseSkipProcessingInvalid", path: "/skp:jpg:png:bad_format/plain/\(ipsum)"),
        // imgproxy options/parser/processing_options_test.go TestParsePathPreserveHDR: an option thumbd
        // does not have is refused, not ignored
        Refusal(imgproxyTest: "TestParsePathPreserveHDR", path: "/ph:1/plain/\(ipsum)"),
        // imgproxy options/parser/url_options.go applyURLOption: enforce_thumbnail, thumbd does not have it
        Refusal(imgproxyTest: "applyURLOption eth", path: "/eth:1/plain/\(ipsum)"),
        // imgproxy options/parser/url_options.go applyURLOption: an unknown option
        Refusal(imgproxyTest: "applyURLOption unknown", path: "/brightness:10/plain/\(ipsum)"),
        // imgproxy options/parser/url_options.go parsePathOptions: the deprecated basic URL format
        Refusal(imgproxyTest: "parsePathOptions basic format", path: "/fill/300/400/ce/0/\(base64(ipsum)).png"),
        // imgproxy options/parser/url.go decodePlainURL, decodeBase64URL: no URL
        Refusal(imgproxyTest: "decodePlainURL empty", path: "/w:1/plain/@png"),
        Refusal(imgproxyTest: "decodeBase64URL empty", path: "/w:1/.png"),
        // imgproxy security/signature.go VerifySignature: no key, a signature that is an option
        Refusal(imgproxyTest: "VerifySignature malformed", path: "/rs:fill:300/plain/\(ipsum)", status: 403),
    ]

    @Test(arguments: refusals)
    func refusedAsImgproxyRefuses(_ refusal: Refusal) {
        // The malformed signature stands where the signature goes: sent without one.
        let path = refusal.status == 403 ? refusal.path : "/insecure\(refusal.path)"
        let parser = RequestPathParser(verifier: .insecure, baseURL: nil, policy: Renderer.encodePolicy)

        let error = #expect(throws: RequestFailure.self) { try parser.parse(rawPath: path) }

        #expect(error?.status == refusal.status, "\(String(describing: error))")
    }

    // MARK: Presets-only URLs

    // imgproxy options/parser/processing_options_test.go TestParsePathOnlyPresets, TestParseBase64URLOnlyPresets
    @Test(arguments: [("/test1:test2/plain/\(ipsum)@png", ipsum),
                      ("/test1:test2/\(base64(ipsumWithQuery)).png", ipsumWithQuery)])
    func onlyPresetsReadsTheFirstSegmentAsPresets(_ path: String, url: String) throws {
        let request = try Self.parse(path, presets: "test1=blur:0.2, test2=quality:50", onlyPresets: true)

        #expect(request.options == .with { $0.blur = 0.2; $0.quality = 50; $0.format = .png })
        #expect(request.sourceURL == url)
    }

    // MARK: Preset definitions

    // imgproxy options/parser/presets_test.go TestParsePreset, TestValidatePresets
    @Test func aPresetIsItsOptions() throws {
        let presets = try Presets(parsing: "test=resize:fit:100:200/sharpen:2")

        #expect(presets["test"] == [URLOption(name: "resize", arguments: ["fit", "100", "200"]),
                                    URLOption(name: "sharpen", arguments: ["2"])])
        #expect(OptionParser(presets: presets).presetProblems().isEmpty)
    }

    // imgproxy options/parser/presets_test.go TestParsePresetEmptyString, TestParsePresetComment
    @Test(arguments: ["   ", "#  test=resize:fit:100:200/sharpen:2"])
    func blankAndCommentedPresetsAreNone(_ text: String) throws {
        #expect(try Presets(parsing: text).isEmpty)
    }

    // imgproxy options/parser/presets_test.go TestParsePresetInvalidString, TestParsePresetEmptyName,
    // TestParsePresetEmptyValue, TestParsePresetInvalidValue, TestValidatePresetsInvalid
    @Test(arguments: ["resize:fit:100:200/sharpen:2", "=resize:fit:100:200/sharpen:2", "test=",
                      "test=resize:fit:100:200/sharpen:2/blur", "test=resize:fit:-1:-2/sharpen:2"])
    func aBrokenPresetStopsTheStart(_ text: String) {
        #expect(ConfigurationTests.problems(["PRESETS": text]).count == 1)
    }

    // MARK: The path

    // imgproxy handlers/path_test.go TestParsePath
    @Test(arguments: [
        ("BasicPath", "/dummy/rs:fill:300:200/plain/http://example.com/image.jpg"),
        ("PathWithQueryParams", "/dummy/rs:fill:300:200/plain/http://example.com/image.jpg?param1=value1&param2=value2"),
        ("PathWithPlainUrlRedenormalization", "/dummy/rs:fill:300:200/plain/http:/example.com/image.jpg"),
        ("PathWithOptionsSeparatorUnescapingPLain", "/dummy/rs%3Afill%3A300%3A200/plain/http://example.com/image.jpg"),
    ])
    func aPathIsSplitAndRepairedAsImgproxyDoes(_ imgproxyCase: String, path: String) throws {
        let parser = RequestPathParser(verifier: .insecure, baseURL: nil, policy: Renderer.encodePolicy)

        let request = try parser.parse(rawPath: path)

        #expect(request.sourceURL == "http://example.com/image.jpg", "\(imgproxyCase)")
        #expect(request.options == .with { $0.resizingType = .fill; $0.width = 300; $0.height = 200 }, "\(imgproxyCase)")
    }

    // imgproxy handlers/path_test.go TestParsePath (NoSignatureSeparator, EmptyPath, OnlySignature)
    @Test(arguments: ["/invalid_path_without_slash", "/", "/signature_only", "/signature/"])
    func aPathWithoutOptionsAndSourceIsAnInvalidURL(_ path: String) {
        let error = #expect(throws: RequestFailure.self) {
            try RequestPathParser(verifier: .insecure, baseURL: nil, policy: Renderer.encodePolicy).parse(rawPath: path)
        }

        #expect(error?.status == 404)
    }

    // imgproxy handlers/path_test.go TestParsePath (PathWithOptionsSeparatorUnescapingBas64) and
    // TestRedenormalizePathHTTPProtocol, each case with the leading slash thumbd's signed path keeps
    @Test(arguments: [
        ("/rs%3Afill%3A300%3A200/abc/abc", "/rs:fill:300:200/abc/abc"),
        ("/plain/http:/example.com/image.jpg", "/plain/http://example.com/image.jpg"),
        ("/plain/https:/example.com/image.jpg", "/plain/https://example.com/image.jpg"),
        ("/plain/local:/image.jpg", "/plain/local:///image.jpg"),
        ("/rs:fill:300:200/plain/http:/example.com/image.jpg", "/rs:fill:300:200/plain/http://example.com/image.jpg"),
        ("/plain/http://example.com/image.jpg", "/plain/http://example.com/image.jpg"),
        ("/rs:fill:300:200/plain/example.com/image.jpg", "/rs:fill:300:200/plain/example.com/image.jpg"),
        ("/", "/"),
        ("/http:/example.com/image.jpg", "/http:/example.com/image.jpg"),
        ("/plain/example.com/image.jpg", "/plain/example.com/image.jpg"),
        ("/plain/http:", "/plain/http:"),
        ("/plain/http:/test", "/plain/http://test"),
        // only a scheme at the start gets its slashes back (imgproxy's greedy pattern takes the last `:/`)
        ("/plain/http://example.com/a:/b.jpg", "/plain/http://example.com/a:/b.jpg"),
    ])
    func aPathIsRepairedAsImgproxyRepairsIt(_ path: String, repaired: String) {
        #expect(PathRepair.repaired(Array(path.utf8)[...]) == Array(repaired.utf8))
    }
}
