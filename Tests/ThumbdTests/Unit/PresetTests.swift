import Testing
import ThumbdTestSupport
@testable import ThumbRequest
@testable import ThumbRuntime
@testable import thumbd

/// imgproxy's presets: written as in IMGPROXY_PRESETS, `default` applied first to every URL,
/// `pr:a:b` where it stands, presets-only URLs, and every broken preset named at start.
@Suite(.timeLimit(.minutes(2)))
struct PresetTests {
    static func presets(_ text: String) throws -> Presets { try Presets(parsing: text) }

    static func parser(_ text: String, onlyPresets: Bool = false) throws -> OptionParser {
        OptionParser(presets: try presets(text), onlyPresets: onlyPresets)
    }

    static func parse(_ path: String, presets text: String, onlyPresets: Bool = false) throws -> ThumbnailRequest {
        try OptionTable.parser(try parser(text, onlyPresets: onlyPresets)).parse(rawPath: path)
    }

    // MARK: Definitions

    @Test func definitionsAreReadAsImgproxyWritesThem() throws {
        // Given two presets, spaces, a blank entry and a comment
        let presets = try Self.presets(" thumb = rs:fill:100:100/q:80 ,, # old=w:1 ,sharp=sh:1")

        // Then each name maps to its options, split as in a URL
        #expect(presets.names == ["sharp", "thumb"])
        #expect(presets["thumb"] == [URLOption(name: "rs", arguments: ["fill", "100", "100"]),
                                     URLOption(name: "q", arguments: ["80"])])
        #expect(presets["sharp"] == [URLOption(name: "sh", arguments: ["1"])])
        #expect(presets["old"] == nil)
    }

    @Test func laterDefinitionOfANameWins() throws {
        #expect(try Self.presets("a=w:1,a=w:2")["a"] == [URLOption(name: "w", arguments: ["2"])])
    }

    @Test(arguments: [
        ("thumb", #""thumb" is not name=option/option/..."#),
        ("=w:1", #""=w:1" has no name"#),
        ("thumb=", #"preset "thumb" has no options"#),
        ("a=b=c", #""a=b=c" is not name=option/option/..."#),
        ("thumb=w:1/blur", #"preset "thumb": "blur" is not an option"#),
        ("thumb=w:1/", #"preset "thumb": "" is not an option"#),
    ])
    func malformedDefinitionIsNamed(_ text: String, message: String) {
        let error = #expect(throws: Presets.Invalid.self) { try Self.presets(text) }

        #expect(error?.messages.count == 1)
        #expect(error?.messages.first?.contains(message) == true, "\(error?.messages ?? [])")
    }

    // MARK: Applying

    @Test func defaultPresetIsAppliedFirst() throws {
        let presets = "default=q:70/w:100/f:webp"

        // A URL without options gets the default preset; a URL's own options go over it
        let bare = try Self.parse("/insecure/plain/http://h/a.jpg", presets: presets)
        let own = try Self.parse("/insecure/w:300/plain/http://h/a.jpg@png", presets: presets)

        #expect(bare.options == .with { $0.quality = 70; $0.width = 100; $0.format = .webp })
        #expect(own.options == .with { $0.quality = 70; $0.width = 300; $0.format = .png })
    }

    @Test(arguments: [
        // presets in order, where `pr` stands: what comes later wins
        ("/insecure/w:10/pr:a:b/h:20", ProcessingOptions.with { $0.width = 200; $0.height = 20 }),
        ("/insecure/pr:b:a", .with { $0.width = 100; $0.height = 50 }),
        ("/insecure/pr:b/w:10", .with { $0.width = 10; $0.height = 50 }),
        ("/insecure/preset:a/preset:b", .with { $0.width = 200; $0.height = 50 }),
        // a preset may name presets
        ("/insecure/pr:nested", .with { $0.width = 100; $0.quality = 50 }),
        // applying one twice is not a loop
        ("/insecure/pr:a:a", .with { $0.width = 100 }),
    ])
    func namedPresetsApplyInOrderWhereTheyStand(_ options: String, expected: ProcessingOptions) throws {
        let presets = "a=w:100, b=w:200/h:50, nested=pr:a/q:50"

        let request = try Self.parse("\(options)/plain/http://h/a.jpg", presets: presets)

        #expect(request.options == expected)
    }

    /// An empty name is unknown too, as imgproxy's options/parser/apply.go applyPresetOption finds it.
    @Test(arguments: [("pr:a:zz", "zz"), ("pr:a:", "")])
    func unknownPresetIsAnInvalidURLNamingIt(_ options: String, name: String) {
        #expect(throws: RequestFailure.invalidURL("unknown preset \(name.debugDescription)")) {
            try Self.parse("/insecure/\(options)/plain/http://h/a.jpg", presets: "a=w:1")
        }
    }

    /// A loop is skipped where it would start again (ImgproxyOptionParityTests reads one), so it is no
    /// problem at start either, as imgproxy starts with it.
    @Test func presetThatIncludesItselfIsNoProblemAtStart() {
        #expect(ConfigurationTests.problems(["PRESETS": "a=w:1/pr:a, b=pr:c, c=pr:b"]).isEmpty)
    }

    // MARK: Presets-only URLs

    @Test(arguments: [
        ("/insecure/a:b/plain/http://h/a.jpg@png", ProcessingOptions.with { $0.width = 200; $0.height = 50; $0.format = .png }),
        ("/insecure/a/plain/http://h/a.jpg", .with { $0.width = 100 }),
        ("/insecure/b/aHR0cDovL2gvYS5qcGc.webp", .with { $0.width = 200; $0.height = 50; $0.format = .webp }),
    ])
    func onlyPresetsModeReadsTheFirstSegmentAsPresets(_ path: String, expected: ProcessingOptions) throws {
        let request = try Self.parse(path, presets: "default=q:60, a=w:100, b=w:200/h:50", onlyPresets: true)

        #expect(request.sourceURL == "http://h/a.jpg")
        #expect(request.options == expected.changing { $0.quality = 60 })
    }

    @Test(arguments: [
        ("/insecure/w:300/plain/http://h/a.jpg", #"unknown preset "w""#),
        ("/insecure/plain/http://h/a.jpg", #"unknown preset "plain""#),
        ("/insecure/a", "missing source URL"),
    ])
    func onlyPresetsModeTakesNoOptions(_ path: String, message: String) {
        #expect(throws: RequestFailure.invalidURL(message)) {
            try Self.parse(path, presets: "a=w:100", onlyPresets: true)
        }
    }

    // MARK: Checked at start

    @Test(arguments: [
        ("thumb=w:abc", #"preset "thumb": invalid w argument "abc""#),
        ("a=pr:zz", #"preset "a": unknown preset "zz""#),
        ("safe=msfs:1000", #"preset "safe": security options are not allowed"#),
        ("thumb", #""thumb" is not name=option/option/..."#),
    ])
    func brokenPresetIsAConfigurationProblemNamingIt(_ text: String, message: String) {
        let problems = ConfigurationTests.problems(["PRESETS": text])

        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.hasPrefix("IMGPROXY_PRESETS=") == true)
        #expect(problems.first?.contains(message) == true, "\(problems)")
    }

    @Test func everyBrokenPresetIsNamedAtOnce() {
        let problems = ConfigurationTests.problems(["PRESETS": "a=w:x, b=h:y, ok=w:1"])

        #expect(problems.count == 1)
        #expect(problems.first?.contains(#"preset "a": invalid w argument "x""#) == true, "\(problems)")
        #expect(problems.first?.contains(#"preset "b": invalid h argument "y""#) == true, "\(problems)")
    }

    @Test func configurationGivesTheServerItsPresets() throws {
        // Given presets, presets-only mode and security options from the environment
        let configuration = try ConfigurationTests.load([
            "PRESETS": "default=q:70, safe=msfs:1000", "ONLY_PRESETS": "true", "ALLOW_SECURITY_OPTIONS": "1", "INSECURE": "true",
        ])

        // When the server's parser is made from it
        let parser = configuration.requestPathParser
        let request = try parser.parse(rawPath: "/insecure/safe/plain/http://h/a.jpg")

        // Then the URL's first segment names presets, and a preset may carry security options
        #expect(configuration.options.onlyPresets)
        #expect(configuration.options.presets.names == ["default", "safe"])
        #expect(request.options == .with { $0.quality = 70; $0.maxSourceFileSize = 1_000 })
    }

    @Test func settingsAreImgproxys() {
        #expect(Settings.setting("PRESETS").environmentNames == ["THUMBD_PRESETS", "IMGPROXY_PRESETS"])
        #expect(Settings.setting("ONLY_PRESETS").environmentNames == ["THUMBD_ONLY_PRESETS", "IMGPROXY_ONLY_PRESETS"])
        #expect(Settings.setting("ALLOW_SECURITY_OPTIONS").environmentNames
                == ["THUMBD_ALLOW_SECURITY_OPTIONS", "IMGPROXY_ALLOW_SECURITY_OPTIONS"])
    }
}

extension ProcessingOptions {
    func changing(_ change: (inout ProcessingOptions) -> Void) -> ProcessingOptions {
        var options = self
        change(&options)
        return options
    }
}
