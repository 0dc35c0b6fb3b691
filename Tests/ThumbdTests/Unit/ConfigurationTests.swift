import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbImaging
@testable import ThumbRequest
@testable import ThumbRuntime
@testable import ThumbServer
@testable import thumbd

/// Every setting read from one lookup and validated at once.
@Suite(.timeLimit(.minutes(2)))
struct ConfigurationTests {
    /// A lookup as thumbd's flags and environment give it: each value comes with where it was found.
    static func lookup(_ values: [String: String]) -> Settings.Lookup {
        { setting in values[setting.name].map { (value: $0, origin: Self.origin(of: setting.name)) } }
    }

    static func origin(of name: String) -> String { Settings.setting(name).environmentNames.last! }

    static func load(_ values: [String: String]) throws -> Settings {
        try Settings.load(lookup(values)).get()
    }

    static func problems(_ values: [String: String]) -> [String] {
        guard case .failure(let problems) = Settings.load(lookup(values)) else { return [] }
        return problems.messages
    }

    @Test func emptyLookupGivesTheDefaults() throws {
        let configuration = try Self.load([:])

        #expect(configuration.listen == .unix(path: "/run/thumbd/thumbd.sock"))
        #expect(configuration.cacheRoot == "/var/cache/thumbd")
        #expect(configuration.workers == 2 * System.coreCount)
        #expect(configuration.logLevel.rawValue == "info")
        #expect(configuration.signing.pairs.isEmpty && !configuration.signing.acceptsAnySignature)
        #expect(configuration.signing.size == 32)
        #expect(configuration.baseURL == nil)
        #expect(configuration.fetch.maxBytes == 20 * 1024 * 1024)
        #expect(configuration.fetch.connectTimeoutMilliseconds == 3_000)
        // imgproxy's defaults
        #expect(configuration.fetch.totalTimeoutMilliseconds == 5_000)
        #expect(configuration.fetch.maxRedirects == 10)
        #expect(configuration.limits.requestTimeout == 10)
        #expect(configuration.options.base.keepCopyright && configuration.options.base.stripMetadata)
        #expect(configuration.options.base.stripColorProfile && configuration.options.base.autoRotate)
        #expect(configuration.fetch.userAgent == "thumbd/\(ThumbdVersion.current)")
        #expect(!configuration.fetch.addressPolicy.allowLoopback)
        #expect(!configuration.fetch.addressPolicy.allowPrivate)
        #expect(!configuration.fetch.addressPolicy.allowLinkLocal)
        #expect(configuration.render.maxSourcePixels == 50_000_000)
        #expect(configuration.options.presets.isEmpty)
        #expect(!configuration.options.onlyPresets)
        #expect(!configuration.options.allowSecurityOptions)
    }

    @Test func everySettingIsRead() throws {
        let configuration = try Self.load([
            "LISTEN": "127.0.0.1:9000",
            "CACHE_ROOT": "/srv/thumbs/",
            "WORKERS": "7",
            "LOG_LEVEL": "warn",
            "KEY": "736563726574",
            "SALT": "68656C6C6F",
            "SIGNATURE_SIZE": "8",
            "BASE_URL": "http://images.example/",
            "MAX_SRC_FILE_SIZE": "1048576",
            "MAX_SRC_RESOLUTION": "12.5",
            "DOWNLOAD_TIMEOUT": "5",
            "MAX_REDIRECTS": "2",
            "USER_AGENT": "thumbd-test/1",
            "ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true",
            "ALLOW_PRIVATE_SOURCE_ADDRESSES": "1",
            "ALLOW_LINK_LOCAL_SOURCE_ADDRESSES": "yes",
            "PRESETS": "thumb=rs:fill:100:100",
            "ONLY_PRESETS": "1",
            "ALLOW_SECURITY_OPTIONS": "true",
        ])

        #expect(configuration.listen == .tcp(host: "127.0.0.1", port: 9000))
        #expect(configuration.cacheRoot == "/srv/thumbs")
        #expect(configuration.workers == 7)
        #expect(configuration.logLevel.rawValue == "warning")
        #expect(configuration.signing.pairs.map(\.key) == [Array("secret".utf8)])
        #expect(configuration.signing.pairs.map(\.salt) == [Array("hello".utf8)])
        #expect(configuration.signing.size == 8)
        #expect(configuration.baseURL == "http://images.example/")
        #expect(configuration.fetch.maxBytes == 1_048_576)
        #expect(configuration.render.maxSourcePixels == 12_500_000)
        #expect(configuration.fetch.totalTimeoutMilliseconds == 5_000)
        #expect(configuration.fetch.connectTimeoutMilliseconds == 3_000)
        #expect(configuration.fetch.maxRedirects == 2)
        #expect(configuration.fetch.userAgent == "thumbd-test/1")
        #expect(configuration.fetch.addressPolicy.allowLoopback)
        #expect(configuration.fetch.addressPolicy.allowPrivate)
        #expect(configuration.fetch.addressPolicy.allowLinkLocal)
        #expect(configuration.options.presets["thumb"] == [URLOption(name: "rs", arguments: ["fill", "100", "100"])])
        #expect(configuration.options.onlyPresets)
        #expect(configuration.options.allowSecurityOptions)
    }

    @Test func socketGroupIsAGroupThatExists() throws {
        #expect(try Self.load([:]).server.socketGroup == nil)
        #expect(try Self.load(["SOCKET_GROUP": "root"]).server.socketGroup == 0)
        #expect(try Self.load(["SOCKET_GROUP": "4242"]).server.socketGroup == 4242)
        #expect(Self.problems(["SOCKET_GROUP": "no-such-group-here"]).count == 1)
    }

    @Test func sourceFormatsAreNamedFormats() throws {
        #expect(try Self.load([:]).render.sourceFormats == [.jpeg, .png, .gif, .webp, .avif, .bmp])
        #expect(try Self.load(["SOURCE_FORMATS": "JPEG, png,heic"]).render.sourceFormats == [.jpeg, .png, .heic])
        #expect(Self.problems(["SOURCE_FORMATS": "jpeg,svg"]).count == 1)
        #expect(Self.problems(["SOURCE_FORMATS": ","]).count == 1)
    }

    // imgproxy processing/config.go (PREFERRED_FORMATS: formats it cannot save are skipped, none
    // left is an error); clientfeatures/config.go; v3.31.4 config/config.go (ENABLE_WEBP_DETECTION,
    // read before AUTO_WEBP)
    @Test func theOutputFormatSettingsAreImgproxys() throws {
        #expect(try Self.load([:]).render.preferredFormats.formats == [.jpeg, .png, .gif])
        #expect(try Self.load(["PREFERRED_FORMATS": "webp, heic, PNG"]).render.preferredFormats.formats == [.webp, .png])
        #expect(try Self.load(["PREFERRED_FORMATS": "jxl,jpeg"]).render.preferredFormats.formats == [.jxl, .jpeg])
        #expect(Self.problems(["PREFERRED_FORMATS": "heic"]).count == 1)
        #expect(Self.problems(["PREFERRED_FORMATS": "jpeg,bogus"]).count == 1)

        let negotiation = try Self.load(["ENFORCE_WEBP": "true", "ENFORCE_AVIF": "1", "ENABLE_WEBP_DETECTION": "true"]).negotiation
        #expect(negotiation == FormatNegotiation(webp: true, enforceWebp: true, enforceAvif: true))
        #expect(try Self.load(["ENABLE_AVIF_DETECTION": "true"]).negotiation.avif)
        // the current name wins over the deprecated one
        #expect(try !Self.load(["ENABLE_WEBP_DETECTION": "true", "AUTO_WEBP": "false"]).negotiation.webp)
    }

    @Test func jpegXLIsNegotiatedInTheOrderSet() throws {
        let negotiation = try Self.load(["AUTO_JXL": "true", "ENFORCE_JXL": "true", "JXL_EFFORT": "7"])
        #expect(negotiation.negotiation == FormatNegotiation(jxl: true, enforceJxl: true))
        #expect(negotiation.options.base.jxlEffort == 7)
        #expect(try Self.load([:]).negotiation.order == [.avif, .jxl, .webp])
        #expect(try Self.load(["FORMAT_NEGOTIATION_ORDER": "jxl, AVIF,webp"]).negotiation.order == [.jxl, .avif, .webp])
        for wrong in ["avif,webp", "avif,jxl,webp,avif", "avif,jxl,png", ""] {
            #expect(Self.problems(["FORMAT_NEGOTIATION_ORDER": wrong]).count == 1, "\(wrong) was taken")
        }
        #expect(Self.problems(["JXL_EFFORT": "10"]).count == 1)
    }

    @Test func paramsTimeoutIsRead() throws {
        #expect(try Self.load([:]).server.paramsTimeout == 5)
        #expect(try Self.load(["PARAMS_TIMEOUT": "0.5"]).server.paramsTimeout == 0.5)
        #expect(Self.problems(["PARAMS_TIMEOUT": "0"]).count == 1)
    }

    @Test(arguments: [
        ("unix:/run/t.sock", ListenAddress.unix(path: "/run/t.sock")),
        ("/run/t.sock", .unix(path: "/run/t.sock")),
        ("127.0.0.1:9000", .tcp(host: "127.0.0.1", port: 9000)),
    ])
    func listenForms(_ text: String, expected: ListenAddress) throws {
        #expect(try Self.load(["LISTEN": text]).listen == expected)
    }

    @Test(arguments: [
        ("warn", "warning"), ("ERROR", "error"), ("debug", "debug"), ("fatal", "critical"), ("trace", "trace"),
    ])
    func logLevelNames(_ text: String, expected: String) throws {
        #expect(try Self.load(["LOG_LEVEL": text]).logLevel.rawValue == expected)
    }

    @Test(arguments: [
        ("1", true), ("t", true), ("TRUE", true), ("yes", true),
        ("0", false), ("f", false), ("false", false), ("no", false), ("", false),
    ])
    func booleanForms(_ text: String, expected: Bool) throws {
        #expect(try Self.load(["ALLOW_PRIVATE_SOURCE_ADDRESSES": text]).fetch.addressPolicy.allowPrivate == expected)
    }

    @Test(arguments: [("5", 5_000, 3_000), ("1", 1_000, 1_000), ("2.5", 2_500, 2_500), ("0.1", 100, 100)])
    func downloadTimeoutAlsoBoundsTheConnectTimeout(_ text: String, total: Int, connect: Int) throws {
        let fetch = try Self.load(["DOWNLOAD_TIMEOUT": text]).fetch

        #expect(fetch.totalTimeoutMilliseconds == total)
        #expect(fetch.connectTimeoutMilliseconds == connect)
    }

    @Test func aSourceProxyIsAnHTTPProxyAndNoneByDefault() throws {
        #expect(try Self.load([:]).fetch.proxy == nil)
        #expect(try Self.load(["SOURCE_PROXY": ""]).fetch.proxy == nil)
        #expect(try Self.load(["SOURCE_PROXY": "http://proxy.internal:3128"]).fetch.proxy == "http://proxy.internal:3128")
        #expect(try Self.load(["SOURCE_PROXY": "https://proxy.internal"]).fetch.proxy == "https://proxy.internal")
        // a SOCKS proxy may resolve names itself, past the address guard
        for refused in ["socks5h://proxy.internal:1080", "socks5://proxy.internal:1080", "proxy.internal:3128"] {
            #expect(Self.problems(["SOURCE_PROXY": refused]).count == 1, "\(refused)")
        }
    }

    @Test func zeroMeansWhatImgproxySaysItMeans() throws {
        // imgproxy's docs (configuration/options.mdx): no file size check, an unlimited queue, the
        // usual status, and the TTL (a year) for the fallback image
        #expect(try Self.load(["MAX_SRC_FILE_SIZE": "0"]).fetch.maxBytes == Int.max)
        #expect(try Self.load(["REQUESTS_QUEUE_SIZE": "0"]).limits.queueSize == Int.max)
        #expect(try Self.load(["FALLBACK_IMAGE_HTTP_CODE": "0"]).fallback.status == nil)
        #expect(try Self.load(["FALLBACK_IMAGE_TTL": "0"]).fallback.maxAge == 31_536_000)
        #expect(Self.problems(["FALLBACK_IMAGE_HTTP_CODE": "150"]).count == 1)
    }

    @Test func everyInvalidValueIsReportedAtOnce() {
        // Given fourteen settings with bad values
        let invalid: [String: String] = [
            "LISTEN": "nowhere",
            "CACHE_ROOT": "relative/dir",
            "WORKERS": "0",
            "LOG_LEVEL": "loud",
            "SIGNATURE_SIZE": "33",
            "MAX_SRC_FILE_SIZE": "-1",
            "MAX_SRC_RESOLUTION": "0",
            "DOWNLOAD_TIMEOUT": "never",
            "MAX_REDIRECTS": "21",
            "ALLOW_LOOPBACK_SOURCE_ADDRESSES": "maybe",
            "KEY": "zz",
            "PRESETS": "thumb=w:abc",
            "ONLY_PRESETS": "maybe",
            "ALLOW_SECURITY_OPTIONS": "2",
        ]

        // When loading
        let messages = Self.problems(invalid)

        // Then one problem each, naming where the value came from and the value itself, unless it
        // is a secret's
        #expect(messages.count == invalid.count, "\(messages)")
        for (setting, value) in invalid {
            let origin = Self.origin(of: setting)
            let shown = Settings.setting(setting).secret ? "(secret, not shown)" : value.debugDescription
            #expect(messages.filter { $0.hasPrefix("\(origin)=\(shown):") }.count == 1, "no problem names \(origin)=\(shown)")
        }
    }

    @Test func theFallbackImageIsReadAtStartFromAFileOrBase64() throws {
        let png = TestImages.draw("xc:magenta", width: 4, height: 3, format: .png)
        let path = NSTemporaryDirectory() + "thumbd-fallback-\(UUID().uuidString).png"
        try Data(png).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }

        let fromFile = try Self.load(["FALLBACK_IMAGE_PATH": path, "FALLBACK_IMAGE_HTTP_CODE": "404", "FALLBACK_IMAGE_TTL": "30"]).fallback
        let fromData = try Self.load(["FALLBACK_IMAGE_DATA": Data(png).base64EncodedString()]).fallback

        #expect(fromFile.image == png && fromFile.status == 404 && fromFile.maxAge == 30)
        #expect(fromData.image == png && fromData.status == 200 && fromData.maxAge == 60)
    }

    @Test func aFallbackThatIsNoImageOrGivenTwiceIsAProblem() {
        #expect(Self.problems(["FALLBACK_IMAGE_PATH": "/etc/hostname"]).first?.contains("image") == true)
        #expect(Self.problems(["FALLBACK_IMAGE_DATA": "bm90IGFuIGltYWdl"]).first?.contains("image") == true)
        #expect(Self.problems(["FALLBACK_IMAGE_HTTP_CODE": "99"]).count == 1)
        let twice = Self.problems(["FALLBACK_IMAGE_DATA": "bm90IGFuIGltYWdl", "FALLBACK_IMAGE_URL": "http://127.0.0.1/x.png"])
        #expect(twice.contains { $0.contains("give one fallback image only") }, "\(twice)")
    }

    @Test func keysAndSaltsMustPairUp() {
        let messages = Self.problems(["KEY": "736563726574,746573742d6b6579", "SALT": "68656C6C6F"])

        #expect(messages.count == 1)
        #expect(messages.first?.contains("KEY has 2 key(s) but SALT has 1 salt(s)") == true, "\(messages)")
    }

    @Test(arguments: [[:], ["KEY": "", "SALT": ""]])
    func withoutAKeyNoURLVerifiesAndServingSaysWhy(_ values: [String: String]) throws {
        // Given no key, or an empty one, and no insecure mode
        let configuration = try Self.load(values)

        // Then no signature verifies, `insecure` included, and what serves URLs is told why
        #expect(throws: RequestFailure.forbidden("invalid signature")) {
            try configuration.signing.verify(signature: "insecure", path: "/w:10/plain/http://h/a.jpg")
        }
        #expect(configuration.signingProblem?.contains("INSECURE=true") == true)
    }

    @Test func insecureModeIsAskedForByNameAndNotBesideAKey() throws {
        let insecure = try Self.load(["INSECURE": "true"])
        #expect(insecure.signing.acceptsAnySignature && insecure.signingProblem == nil)
        #expect(throws: Never.self) { try insecure.signing.verify(signature: "anything", path: "/w:10/plain/http://h/a.jpg") }

        let both = Self.problems(["INSECURE": "true", "KEY": "736563726574", "SALT": "68656C6C6F"])
        #expect(both.count == 1 && both.first?.contains("not both") == true, "\(both)")
    }

    @Test(arguments: ["1", "7"])
    func aSignatureUnderEightBytesIsAProblem(_ size: String) {
        let messages = Self.problems(["KEY": "736563726574", "SALT": "68656C6C6F", "SIGNATURE_SIZE": size])

        #expect(messages.count == 1)
        #expect(messages.first?.contains("from 8 to 32: a shorter signature can be found by trying") == true, "\(messages)")
    }

    @Test func commaSeparatedHexKeysBuildOnePairEach() throws {
        // Given the two published key pairs, as imgproxy takes several
        let configuration = try Self.load([
            "KEY": "736563726574, 746573742d6b6579",
            "SALT": "68656C6C6F,746573742D73616C74",
        ])

        // Then both pairs are built, in order, and URLs signed with either verify
        let signing = configuration.signing
        #expect(signing.pairs.map(\.key) == [Array("secret".utf8), Array("test-key".utf8)])
        #expect(signing.pairs.map(\.salt) == [Array("hello".utf8), Array("test-salt".utf8)])
        #expect(throws: Never.self) {
            try signing.verify(
                signature: "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8",
                path: "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png")
        }
        #expect(throws: Never.self) {
            try signing.verify(signature: "oWaL7QoW5TsgbuiS9-5-DI8S3Ibbo1gdB2SteJh3a20", path: "/asd")
        }
    }

    @Test(arguments: ["zz", "abc", "12,zz", "12 34", "+f+f", "-0-0"])
    func keyThatIsNotHexIsAProblem(_ text: String) {
        let messages = Self.problems(["KEY": text, "SALT": text])

        #expect(messages.contains { $0.hasPrefix("IMGPROXY_KEY=") }, "\(text) accepted as hex: \(messages)")
    }

    @Test func environmentNamesPreferThumbdThenImgproxy() {
        for setting in Settings.declared {
            let names = setting.environmentNames
            #expect(names.first == "THUMBD_\(setting.name)")
            if let imgproxyName = setting.imgproxyName {
                #expect(names == ["THUMBD_\(setting.name)", "IMGPROXY_\(imgproxyName)"])
            } else {
                #expect(names == ["THUMBD_\(setting.name)"])
            }
        }
        #expect(Settings.setting("KEY").environmentNames == ["THUMBD_KEY", "IMGPROXY_KEY"])
        #expect(Settings.setting("CACHE_ROOT").environmentNames == ["THUMBD_CACHE_ROOT"])
        #expect(Settings.setting("TIMEOUT").environmentNames == ["THUMBD_TIMEOUT", "IMGPROXY_TIMEOUT"])
        // imgproxy's WORKERS are the images it processes at once: thumbd's renders, not its threads
        #expect(Settings.setting("MAX_CONCURRENT_RENDERS").environmentNames == ["THUMBD_MAX_CONCURRENT_RENDERS", "IMGPROXY_WORKERS"])
        #expect(Settings.setting("WORKERS").environmentNames == ["THUMBD_WORKERS"])
        #expect(!Settings.setting("LISTEN").imgproxy && !Settings.setting("ERROR_CACHE_TTL").imgproxy
            && Settings.setting("REQUESTS_QUEUE_SIZE").imgproxy)
    }

    @Test func webPEffortIsImgproxysSettingWithThumbdsDefault() throws {
        // thumbd searches hardest by default; imgproxy's name sets it, within libwebp's methods
        #expect(try Self.load([:]).options.base.webpEffort == 6)
        #expect(try Self.load(["WEBP_EFFORT": "4"]).options.base.webpEffort == 4)
        #expect(Settings.setting("WEBP_EFFORT").environmentNames == ["THUMBD_WEBP_EFFORT", "IMGPROXY_WEBP_EFFORT"])
        #expect(ImgproxySettings.verdict("WEBP_EFFORT") == nil)
        #expect(Self.problems(["WEBP_EFFORT": "7"]).count == 1)
        #expect(Self.problems(["WEBP_EFFORT": "0"]).count == 1)
    }

    @Test func avifSpeedAndSubsampleAreImgproxysSettingsWithThumbdsDefaults() throws {
        // speed 6 and 4:4:4 by measurement; imgproxy's names set them, within libaom's speeds and
        // libvips's subsample modes
        let defaults = try Self.load([:]).options.base
        #expect(defaults.avifSpeed == 6 && defaults.avifSubsample == .off)
        let set = try Self.load(["AVIF_SPEED": "8", "AVIF_SUBSAMPLE": "AUTO"]).options.base
        #expect(set.avifSpeed == 8 && set.avifSubsample == .auto)
        #expect(Settings.setting("AVIF_SPEED").environmentNames == ["THUMBD_AVIF_SPEED", "IMGPROXY_AVIF_SPEED"])
        #expect(ImgproxySettings.verdict("AVIF_SPEED") == nil && ImgproxySettings.verdict("AVIF_SUBSAMPLE") == nil)
        #expect(Self.problems(["AVIF_SPEED": "10"]).count == 1)
        #expect(Self.problems(["AVIF_SUBSAMPLE": "420"]) == ["IMGPROXY_AVIF_SUBSAMPLE=\"420\": expected auto, on or off"])
    }

    @Test func pngQuantizationIsImgproxysSettingWithItsDefaults() throws {
        // off, 256 colours, as imgproxy; its names set them, from 2 to 256 colours
        let defaults = try Self.load([:]).options.base
        #expect(!defaults.pngQuantize && defaults.pngQuantizationColors == 256)
        let set = try Self.load(["PNG_QUANTIZE": "true", "PNG_QUANTIZATION_COLORS": "16"]).options.base
        #expect(set.pngQuantize && set.pngQuantizationColors == 16)
        #expect(Settings.setting("PNG_QUANTIZE").environmentNames == ["THUMBD_PNG_QUANTIZE", "IMGPROXY_PNG_QUANTIZE"])
        #expect(ImgproxySettings.verdict("PNG_QUANTIZE") == nil && ImgproxySettings.verdict("PNG_QUANTIZATION_COLORS") == nil)
        for colours in ["1", "257"] {
            #expect(Self.problems(["PNG_QUANTIZATION_COLORS": colours])
                == ["IMGPROXY_PNG_QUANTIZATION_COLORS=\"\(colours)\": expected a whole number from 2 to 256"])
        }
    }
}

/// QUALITY and FORMAT_QUALITY become the qualities a URL starts from.
@Suite(.timeLimit(.minutes(2)))
struct DefaultQualityTests {
    static func effective(_ settings: [String: String], url: String, format: ImageFormat) throws -> Int {
        let insecure = settings.merging(["INSECURE": "true"]) { $1 }
        let configuration = try Settings.load { setting in insecure[setting.name].map { ($0, setting.name) } }.get()
        let request = try configuration.requestPathParser.parse(rawPath: url)
        return request.options.effectiveQuality(for: format)
    }

    @Test func configuredQualitiesApplyWhereTheURLAsksForNone() throws {
        let plain = "/insecure/w:10/plain/http://h/a.jpg"
        #expect(try Self.effective([:], url: plain, format: .jpeg) == 80)
        #expect(try Self.effective([:], url: plain, format: .webp) == 79)
        #expect(try Self.effective(["QUALITY": "90"], url: plain, format: .webp) == 90)
        #expect(try Self.effective(["QUALITY": "90", "FORMAT_QUALITY": "webp=70"], url: plain, format: .webp) == 70)
        #expect(try Self.effective(["QUALITY": "90", "FORMAT_QUALITY": "webp=70"], url: plain, format: .jpeg) == 90)
        // a URL's fq redefines the configured value, its q wins over both
        #expect(try Self.effective(["FORMAT_QUALITY": "webp=70"], url: "/insecure/fq:webp:60/plain/http://h/a.jpg", format: .webp) == 60)
        #expect(try Self.effective(["FORMAT_QUALITY": "webp=70"], url: "/insecure/q:55/plain/http://h/a.jpg", format: .webp) == 55)
    }

    @Test func badQualitySettingsAreProblems() {
        let result = Settings.load { setting in
            ["QUALITY": "0", "FORMAT_QUALITY": "webp=high"][setting.name].map { ($0, setting.name) }
        }
        guard case .failure(let problems) = result else { Issue.record("expected problems"); return }
        #expect(problems.messages.count == 2)
    }
}

/// imgproxy's AUTOQUALITY_* settings become the autoquality a URL starts from.
@Suite(.timeLimit(.minutes(2)))
struct AutoQualitySettingsTests {
    static func autoQuality(_ settings: [String: String], url: String) throws -> AutoQuality {
        let insecure = settings.merging(["INSECURE": "true"]) { $1 }
        let configuration = try Settings.load { setting in insecure[setting.name].map { ($0, setting.name) } }.get()
        return try configuration.requestPathParser.parse(rawPath: url).options.autoQuality
    }

    @Test func settingsApplyWhereTheURLSaysNothingAndTheURLRedefinesThem() throws {
        let settings: [String: String] = [
            "AUTOQUALITY_METHOD": "dssim", "AUTOQUALITY_TARGET": "0.004", "AUTOQUALITY_MIN": "40", "AUTOQUALITY_MAX": "90",
            "AUTOQUALITY_FORMAT_MAX": "webp=85", "AUTOQUALITY_ALLOWED_ERROR": "0.0005", "AUTOQUALITY_MAX_RESOLUTION": "2",
        ]
        let configured = try Self.autoQuality(settings, url: "/insecure/w:10/plain/http://h/a.jpg")
        #expect(configured.method == .dssim)
        #expect((configured.target, configured.allowedError, configured.maxResolution) == (0.004, 0.0005, 2))
        #expect(configured.qualities(for: .jpeg) == 40...90)
        #expect(configured.qualities(for: .webp) == 40...85)
        // AVIF keeps imgproxy's default AUTOQUALITY_FORMAT_MIN only where FORMAT_MIN is not set
        #expect(configured.qualities(for: .avif) == 60...90)
        #expect(!configured.applies(to: .jpeg, width: 2000, height: 1001))

        let redefined = try Self.autoQuality(settings, url: "/insecure/aq:size:5000/plain/http://h/a.jpg")
        #expect((redefined.method, redefined.target) == (.size, 5000))
        #expect(try Self.autoQuality(settings, url: "/insecure/aq:none/plain/http://h/a.jpg").method == .none)
    }

    @Test func theDSSIMSlopeIsThumbdsOwnSettingAndOffByDefault() throws {
        let url = "/insecure/aq:dssim/plain/http://h/a.jpg"
        #expect(try Self.autoQuality([:], url: url).dssimSlope == 0)
        #expect(try !Self.autoQuality([:], url: url).spendsBySlope)
        let sloped = try Self.autoQuality(["AUTOQUALITY_DSSIM_SLOPE": "40"], url: url)
        #expect(sloped.dssimSlope == 40)
        #expect(sloped.spendsBySlope)
        #expect(Settings.setting("AUTOQUALITY_DSSIM_SLOPE").name == "AUTOQUALITY_DSSIM_SLOPE")
    }

    @Test func theMaxResolutionHasABoundedDefaultAndTheScoringResolutionIsThumbdsOwn() throws {
        let url = "/insecure/aq:dssim/plain/http://h/a.jpg"
        let defaults = try Self.autoQuality([:], url: url)
        #expect(defaults.maxResolution == 5)
        #expect(defaults.applies(to: .jpeg, width: 2500, height: 2000))
        #expect(!defaults.applies(to: .jpeg, width: 2500, height: 2001))
        #expect(try Self.autoQuality(["AUTOQUALITY_MAX_RESOLUTION": "0"], url: url).applies(to: .jpeg, width: 9000, height: 9000))

        #expect(defaults.scoreResolution == 1)
        #expect(try Self.autoQuality(["AUTOQUALITY_SCORE_RESOLUTION": "2.5"], url: url).scoreResolution == 2.5)
        #expect(Settings.setting("AUTOQUALITY_SCORE_RESOLUTION").environmentNames == ["THUMBD_AUTOQUALITY_SCORE_RESOLUTION"])
    }

    @Test func theMlMethodIsRefusedWithItsReason() {
        let result = Settings.load { setting in ["AUTOQUALITY_METHOD": "ml"][setting.name].map { ($0, setting.name) } }
        guard case .failure(let problems) = result else { Issue.record("expected problems"); return }
        #expect(problems.messages.count == 1)
        #expect(problems.messages.first?.contains("ml needs a neural network model") == true, "\(problems.messages)")
    }
}
