import Testing
@testable import ThumbRequest
import ThumbImaging

/// Two URLs that spell one thumbnail differently share a key (and so one job); any difference
/// in what is produced gives another key.
@Suite(.timeLimit(.minutes(2)))
struct ThumbnailKeyTests {
    static let plain = "plain/http://example.com/images/curiosity.jpg"
    static let base64 = "aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn"

    /// Presets for the "presets or the same options spelled out" rows; security options allowed.
    static let options = OptionParser(
        presets: try! Presets(parsing: "default=sh:0.5, thumb=rs:fill:300:200/g:sm/q:70, webp=f:webp/fq:webp:60"),
        allowSecurityOptions: true)

    static func key(_ path: String) throws -> ThumbnailKey {
        try RequestPathParser(verifier: SignatureVerifier.insecure, baseURL: nil, options: options,
                              policy: Renderer.encodePolicy)
            .parse(rawPath: path).key
    }

    @Test(arguments: [
        ("plain or base64 source",
         "/insecure/rs:fill:300:200/\(plain)@png", "/insecure/rs:fill:300:200/\(base64).png"),
        ("long or short option names",
         "/insecure/resize:fill:300:200/gravity:no/quality:70/format:webp/\(plain)",
         "/insecure/rs:fill:300:200/g:no/q:70/f:webp/\(plain)"),
        ("options in another order",
         "/insecure/w:300/h:200/rt:fill/g:so/\(plain)", "/insecure/g:so/rt:fill/h:200/w:300/\(plain)"),
        ("one option or several",
         "/insecure/rs:fill:300:200:1/\(plain)", "/insecure/rt:fill/w:300/h:200/el:1/\(plain)"),
        ("q:0 or WebP's default quality", "/insecure/q:0/f:webp/\(plain)", "/insecure/q:79/f:webp/\(plain)"),
        ("no quality or JPEG's default", "/insecure/\(plain)@jpg", "/insecure/q:80/\(plain)@jpg"),
        ("q:0 or AVIF's default quality", "/insecure/q:0/\(base64).avif", "/insecure/q:63/\(base64).avif"),
        ("jpg or jpeg", "/insecure/f:jpg/\(plain)", "/insecure/ext:jpeg/\(plain)"),
        ("f: option or extension", "/insecure/f:png/\(plain)", "/insecure/\(plain)@png"),
        ("default gravity or g:ce", "/insecure/rs:fill:30:20/\(plain)", "/insecure/rs:fill:30:20/g:ce/\(plain)"),
        ("no offsets or zero offsets",
         "/insecure/rs:fill:30:20/g:no/\(plain)", "/insecure/rs:fill:30:20/g:no:0:0/\(plain)"),
        ("different signatures", "/insecure/w:300/\(plain)", "/c2lnbmF0dXJl/w:300/\(plain)"),
        ("with a query string", "/insecure/w:300/\(plain)", "/insecure/w:300/\(plain)?v=2"),
        // normal forms of the options beyond size and format
        ("dpr 1 or none", "/insecure/dpr:1/w:300/\(plain)", "/insecure/w:300/\(plain)"),
        ("zoom 1 or none", "/insecure/z:1:1/w:300/\(plain)", "/insecure/w:300/\(plain)"),
        ("-0 or 0 offsets", "/insecure/g:no:-0:-0/\(plain)", "/insecure/g:no/\(plain)"),
        ("-0 watermark offsets", "/insecure/wm:0.5:no:-0:-0/\(plain)", "/insecure/wm:0.5:no/\(plain)"),
        ("long or short names of every kind",
         "/insecure/blur:2/sharpen:1/pixelate:4/background:ff0000/padding:5/rotate:90/flip:1/crop:10:10/\(plain)",
         "/insecure/bl:2/sh:1/pix:4/bg:255:0:0/pd:5:5:5:5/rot:90/fl:1:0/c:10:10:ce/\(plain)"),
        ("CSS padding shorthand", "/insecure/pd:10:20/\(plain)", "/insecure/pd:10:20:10:20/\(plain)"),
        ("rotation by a full turn", "/insecure/rot:360/\(plain)", "/insecure/\(plain)"),
        ("rotation the other way", "/insecure/rot:-90/\(plain)", "/insecure/rot:270/\(plain)"),
        ("PNG ignores quality", "/insecure/q:50/f:png/\(plain)", "/insecure/q:90/f:png/\(plain)"),
        ("fq of the output format or q", "/insecure/fq:webp:70/f:webp/\(plain)", "/insecure/q:70/f:webp/\(plain)"),
        ("fq of another format than the output", "/insecure/fq:avif:40/f:jpg/\(plain)", "/insecure/f:jpg/\(plain)"),
        ("fq entries in any order", "/insecure/fq:webp:50:avif:40/\(plain)", "/insecure/fq:avif:40/fq:webp:50/\(plain)"),
        ("skp of another format than the output", "/insecure/skp:png/f:jpg/\(plain)", "/insecure/f:jpg/\(plain)"),
        ("skp formats in any order", "/insecure/skp:png:gif/\(plain)", "/insecure/skp:gif/skp:png/\(plain)"),
        ("crop 0:0 or none", "/insecure/c:0:0/\(plain)", "/insecure/\(plain)"),
        ("crop with the image's gravity or its own", "/insecure/g:no/c:10:10/\(plain)",
         "/insecure/g:no/c:10:10:no/\(plain)"),
        ("keep_copyright while not stripping", "/insecure/sm:0/kcr:1/\(plain)", "/insecure/sm:0/\(plain)"),
        ("pixelate 1 or none", "/insecure/pix:1/\(plain)", "/insecure/\(plain)"),
        ("watermark of opacity 0 or none", "/insecure/wm:0:no/\(plain)", "/insecure/\(plain)"),
        ("header-only options", "/insecure/fn:cat/att:1/exp:99999999999/w:300/\(plain)", "/insecure/w:300/\(plain)"),
        ("raw off", "/insecure/raw:0/w:300/\(plain)", "/insecure/w:300/\(plain)"),
        ("autoquality none or none asked", "/insecure/aq:none:0.5:10:20/w:300/\(plain)", "/insecure/w:300/\(plain)"),
        ("autoquality where the format is not searched", "/insecure/aq:dssim/\(plain)@png", "/insecure/\(plain)@png"),
        ("autoquality of a JPEG XL", "/insecure/aq:size:9000/\(plain)@jxl", "/insecure/\(plain)@jxl"),
        ("aq or autoquality", "/insecure/aq:dssim:0.02/\(plain)@jpg", "/insecure/autoquality:dssim:0.02/\(plain)@jpg"),
        ("autoquality's default bounds or the same written out", "/insecure/aq:dssim/\(plain)@jpg",
         "/insecure/aq:dssim::70:80/\(plain)@jpg"),
        ("the allowed error where size does not read it", "/insecure/aq:size:9000:70:80:0.1/\(plain)@jpg",
         "/insecure/aq:size:9000:70:80:0.2/\(plain)@jpg"),
        ("subsample_below at its default or none", "/insecure/ssb:90/\(plain)@jpg", "/insecure/\(plain)@jpg"),
        ("subsample_below rules that agree at the quality", "/insecure/ssb:0/q:80/\(plain)@jpg",
         "/insecure/ssb:50/q:80/\(plain)@jpg"),
        ("subsample_below of a PNG", "/insecure/ssb:0/\(plain)@png", "/insecure/\(plain)@png"),
        // presets or the same options spelled out (the default preset applies to both)
        ("a preset or its options", "/insecure/pr:thumb/\(plain)", "/insecure/rs:fill:300:200/g:sm/q:70/\(plain)"),
        ("the default preset or its option", "/insecure/\(plain)", "/insecure/sh:0.5/\(plain)"),
        // q (from thumb) wins over fq (from webp), as in imgproxy
        ("two presets or their options", "/insecure/pr:thumb:webp/\(plain)",
         "/insecure/rs:fill:300:200/g:sm/f:webp/q:70/\(plain)"),
    ])
    func sameThumbnailHasOneKey(_ what: String, _ first: String, _ second: String) throws {
        let a = try Self.key(first)
        let b = try Self.key(second)

        #expect(a == b, "\(what): \(a.canonical) vs \(b.canonical)")
        #expect(a.digest == b.digest)
    }

    @Test(arguments: [
        ("width", "/insecure/rs:fill:300:200/\(plain)", "/insecure/rs:fill:301:200/\(plain)"),
        ("height", "/insecure/rs:fill:300:200/\(plain)", "/insecure/rs:fill:300:201/\(plain)"),
        ("resizing type", "/insecure/rs:fill:300:200/\(plain)", "/insecure/rs:fit:300:200/\(plain)"),
        ("enlarge", "/insecure/rs:fill:300:200/\(plain)", "/insecure/rs:fill:300:200:1/\(plain)"),
        ("gravity", "/insecure/rs:fill:300:200/g:no/\(plain)", "/insecure/rs:fill:300:200/g:so/\(plain)"),
        ("gravity offset",
         "/insecure/rs:fill:300:200/g:no:0:5/\(plain)", "/insecure/rs:fill:300:200/g:no:0:6/\(plain)"),
        ("quality", "/insecure/q:70/\(plain)@webp", "/insecure/q:71/\(plain)@webp"),
        ("format", "/insecure/w:300/\(plain)@webp", "/insecure/w:300/\(plain)@png"),
        ("explicit format or the source's", "/insecure/w:300/\(plain)@jpg", "/insecure/w:300/\(plain)"),
        ("source", "/insecure/w:300/plain/http://example.com/a.jpg", "/insecure/w:300/plain/http://example.com/b.jpg"),
        ("source query", "/insecure/w:300/plain/http://h/a.jpg%3Fv=1", "/insecure/w:300/plain/http://h/a.jpg%3Fv=2"),
        // every option that changes the bytes
        ("min width", "/insecure/mw:100/\(plain)", "/insecure/mw:101/\(plain)"),
        ("min height", "/insecure/mh:100/\(plain)", "/insecure/\(plain)"),
        ("zoom", "/insecure/z:2/\(plain)", "/insecure/z:2:1/\(plain)"),
        ("dpr", "/insecure/w:300/dpr:2/\(plain)", "/insecure/w:300/\(plain)"),
        ("extend", "/insecure/rs:fit:300:200:0:1/\(plain)", "/insecure/rs:fit:300:200/\(plain)"),
        ("extend gravity", "/insecure/ex:1:no/\(plain)", "/insecure/ex:1:so/\(plain)"),
        ("extend aspect ratio", "/insecure/exar:1/\(plain)", "/insecure/\(plain)"),
        ("smart gravity", "/insecure/rs:fill:300:200/g:sm/\(plain)", "/insecure/rs:fill:300:200/\(plain)"),
        ("focus point", "/insecure/g:fp:0.5:0.5/\(plain)", "/insecure/g:fp:0.5:0.6/\(plain)"),
        ("crop", "/insecure/c:100:100/\(plain)", "/insecure/c:100:101/\(plain)"),
        ("crop gravity", "/insecure/c:100:100:no/\(plain)", "/insecure/c:100:100:so/\(plain)"),
        ("trim", "/insecure/t:10/\(plain)", "/insecure/\(plain)"),
        ("trim colour", "/insecure/t:10:ffffff/\(plain)", "/insecure/t:10/\(plain)"),
        ("padding", "/insecure/pd:10/\(plain)", "/insecure/pd:10:0/\(plain)"),
        ("auto rotate", "/insecure/ar:0/\(plain)", "/insecure/\(plain)"),
        ("rotate", "/insecure/rot:90/\(plain)", "/insecure/rot:270/\(plain)"),
        ("flip", "/insecure/fl:1/\(plain)", "/insecure/fl:0:1/\(plain)"),
        ("background", "/insecure/bg:ffffff/\(plain)", "/insecure/\(plain)"),
        ("blur", "/insecure/bl:1/\(plain)", "/insecure/bl:2/\(plain)"),
        ("sharpen, over the default preset's", "/insecure/sh:1/\(plain)", "/insecure/\(plain)"),
        ("pixelate", "/insecure/pix:4/\(plain)", "/insecure/pix:5/\(plain)"),
        ("watermark", "/insecure/wm:0.5/\(plain)", "/insecure/wm:0.6/\(plain)"),
        ("watermark position", "/insecure/wm:0.5:no/\(plain)", "/insecure/wm:0.5:re/\(plain)"),
        ("strip metadata", "/insecure/sm:0/\(plain)", "/insecure/\(plain)"),
        ("keep copyright while stripping", "/insecure/kcr:0/\(plain)", "/insecure/\(plain)"),
        ("strip colour profile", "/insecure/scp:0/\(plain)", "/insecure/\(plain)"),
        ("quality with the source's format", "/insecure/q:80/\(plain)", "/insecure/\(plain)"),
        ("fq with the source's format", "/insecure/fq:webp:50/\(plain)", "/insecure/\(plain)"),
        ("max bytes", "/insecure/mb:1000/\(plain)", "/insecure/\(plain)"),
        ("autoquality on", "/insecure/aq:dssim/\(plain)@jpg", "/insecure/\(plain)@jpg"),
        ("autoquality of an AVIF", "/insecure/aq:size:9000/\(plain)@avif", "/insecure/\(plain)@avif"),
        ("autoquality method", "/insecure/aq:dssim:9000/\(plain)@jpg", "/insecure/aq:size:9000/\(plain)@jpg"),
        ("autoquality target", "/insecure/aq:dssim:0.02/\(plain)@jpg", "/insecure/aq:dssim:0.03/\(plain)@jpg"),
        ("autoquality minimum", "/insecure/aq:dssim:0.02:60/\(plain)@jpg", "/insecure/aq:dssim:0.02:70/\(plain)@jpg"),
        ("autoquality maximum", "/insecure/aq:dssim:0.02:70:80/\(plain)@webp",
         "/insecure/aq:dssim:0.02:70:85/\(plain)@webp"),
        ("autoquality bounds with the source's format", "/insecure/aq:dssim/\(plain)", "/insecure/aq:dssim::60/\(plain)"),
        ("subsample_below within autoquality's range", "/insecure/aq:dssim:0.02:70:95/ssb:90/\(plain)@jpg",
         "/insecure/aq:dssim:0.02:70:95/ssb:95/\(plain)@jpg"),
        ("dssim's allowed error", "/insecure/aq:dssim:0.02:70:80:0.001/\(plain)@jpg",
         "/insecure/aq:dssim:0.02:70:80:0.002/\(plain)@jpg"),
        ("subsample_below at the JPEG's quality", "/insecure/ssb:0/\(plain)@jpg", "/insecure/\(plain)@jpg"),
        ("subsample_below with the source's format", "/insecure/ssb:0/\(plain)", "/insecure/\(plain)"),
        ("subsample_below at a quality max_bytes lowers to", "/insecure/q:95/mb:1000/ssb:80/\(plain)@jpg",
         "/insecure/q:95/mb:1000/ssb:90/\(plain)@jpg"),
        ("4:4:4 JPEG or the 4:2:0 thumbd wrote before", "/insecure/q:95/\(plain)@jpg",
         "/insecure/q:95/ssb:101/\(plain)@jpg"),
        ("skip processing of the output format", "/insecure/skp:jpg/\(plain)@jpg", "/insecure/\(plain)@jpg"),
        ("raw: the source itself", "/insecure/raw:1/w:300/\(plain)", "/insecure/w:300/\(plain)"),
        ("cache buster", "/insecure/cb:1/\(plain)", "/insecure/cb:2/\(plain)"),
        ("max source resolution", "/insecure/msr:1/\(plain)", "/insecure/\(plain)"),
        ("max source file size", "/insecure/msfs:1000/\(plain)", "/insecure/\(plain)"),
        ("max animation frames", "/insecure/maf:1/\(plain)", "/insecure/\(plain)"),
        ("max result dimension", "/insecure/mrd:100/\(plain)", "/insecure/\(plain)"),
    ])
    func anyDifferenceGivesAnotherKey(_ what: String, _ first: String, _ second: String) throws {
        let a = try Self.key(first)
        let b = try Self.key(second)

        #expect(a != b, "\(what): both \(a.canonical)")
        #expect(a.digest != b.digest)
    }

    @Test func keysOfOutputsThatDidNotChangeStayWhatTheyWere() throws {
        // Given a default JPEG (4:2:0 at q80, as before) and a PNG
        let jpeg = try Self.key("/insecure/rs:fill:300:200/\(Self.plain)@jpg").canonical
        let png = try Self.key("/insecure/rs:fill:300:200/\(Self.plain)@png").canonical

        // Then their keys end where they ended before the encoders' chroma entered them
        #expect(jpeg.hasSuffix("|mrd:-"), "\(jpeg)")
        #expect(png.hasSuffix("|mrd:-"), "\(png)")
        // and a WebP's names its sharp YUV, which every WebP now has
        #expect(try Self.key("/insecure/\(Self.plain)@webp").canonical.hasSuffix("|sharpyuv"))
        // and an AVIF's names libavif and its chroma, never an AVIF ImageMagick wrote at any quality
        #expect(try Self.key("/insecure/\(Self.plain)@avif").canonical.hasSuffix("|libavif:444:1"))
    }

    @Test func digestIsShortStableHex() throws {
        let key = try Self.key("/insecure/rs:fill:300:200/\(Self.plain)@png")

        #expect(key.digest.count == 32)
        #expect(key.digest.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(key.digest == (try Self.key("/insecure/rs:fill:300:200/\(Self.plain)@png")).digest)
        #expect(key.description == key.digest)
    }

    @Test func canonicalFormIsDeterministic() throws {
        // Dictionaries and sets are written sorted, so one thumbnail has one canonical string
        let path = "/insecure/fq:webp:50:avif:40:jpg:70:png:90/skp:png:gif:jpg:webp/\(Self.plain)"
        let canonical = try Self.key(path).canonical

        #expect(canonical.contains("|q:0:fq:avif=40,jpeg=70,png=90,webp=50|"), "\(canonical)")
        #expect(canonical.contains("|skp:gif,jpeg,png,webp|"), "\(canonical)")
        for _ in 0..<20 {
            #expect(try Self.key(path).canonical == canonical)
        }
    }

    @Test func keysWithoutAutoqualityAreWhatTheyWereBeforeIt() throws {
        // Stored thumbnails keep their keys: autoquality adds a field only where it is on
        let key = try Self.key("/insecure/rs:fill:300:200/q:70/\(Self.plain)@png")

        #expect(key.canonical == "v2|39:http://example.com/images/curiosity.jpg|rt:fill|s:300:200|min:0:0|z:1.0:1.0|dpr:1.0|"
            + "el:0|ex:-|exar:-|g:ce:0.0:0.0|c:-|t:-|pd:0:0:0:0|ar:1|rot:0|fl:0:0|bg:-|bl:0.0|sh:0.5|pix:0|wm:-|sm:1:1|"
            + "scp:1|f:png|q:-|mb:0|skp:|cb:0:|msr:-|msfs:-|maf:-|mrd:-")
        #expect(try Self.key("/insecure/aq:dssim/\(Self.plain)@jpg").canonical.hasSuffix("|aq:dssim:0.02:70-80:0.002:5.0:score1.0:ssb90"))
    }

    @Test func theScoringResolutionIsInADSSIMKeyOnly() throws {
        // Given one JPEG's options with dssim and with size, each at two scoring resolutions
        var options = ProcessingOptions()
        (options.format, options.autoQuality.method) = (.jpeg, .dssim)
        var finer = options
        finer.autoQuality.scoreResolution = 2

        // Then dssim's keys differ, size's (which compares nothing) do not
        #expect(ThumbnailKey(source: "http://h/a.jpg", options: options, policy: Renderer.encodePolicy).canonical
            != ThumbnailKey(source: "http://h/a.jpg", options: finer, policy: Renderer.encodePolicy).canonical)
        (options.autoQuality.method, finer.autoQuality.method) = (.size, .size)
        #expect(ThumbnailKey(source: "http://h/a.jpg", options: options, policy: Renderer.encodePolicy).canonical
            == ThumbnailKey(source: "http://h/a.jpg", options: finer, policy: Renderer.encodePolicy).canonical)
    }

    @Test func theDSSIMSlopeIsInTheKeyWhereItIsOn() throws {
        // Given one JPEG's options with dssim, without a slope and with two
        var options = ProcessingOptions()
        (options.format, options.autoQuality.method) = (.jpeg, .dssim)
        func key(slope: Double, method: AutoQuality.Method = .dssim) -> String {
            var sloped = options
            (sloped.autoQuality.dssimSlope, sloped.autoQuality.method) = (slope, method)
            return ThumbnailKey(source: "http://h/a.jpg", options: sloped, policy: Renderer.encodePolicy).canonical
        }

        // Then each slope has its own key (it decides the quality and the chroma), no slope the
        // key dssim had before the slope, and size, which ignores it, one key
        #expect(Set([key(slope: 0), key(slope: 40), key(slope: 60)]).count == 3)
        #expect(key(slope: 0).hasSuffix(":ssb90"), "\(key(slope: 0))")
        #expect(key(slope: 40).hasSuffix(":ssb90:slope40.0"), "\(key(slope: 40))")
        #expect(key(slope: 0, method: .size) == key(slope: 40, method: .size))
    }

    @Test func textFieldsCannotPassForOtherFields() throws {
        // A cache buster that spells other fields changes only the cache buster
        let spelled = try Self.key("/insecure/cb:x|f%3apng/\(Self.plain)")
        let plain = try Self.key("/insecure/cb:x/\(Self.plain)@png")

        #expect(spelled != plain)
        #expect(spelled.canonical.contains("|cb:9:x|f%3apng|"), "\(spelled.canonical)")
    }
}
