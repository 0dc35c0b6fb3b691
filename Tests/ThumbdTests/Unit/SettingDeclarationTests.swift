import Foundation
import Testing
@testable import ThumbFetch
import ThumbRuntime
@testable import thumbd

/// Every setting is declared once; its names, the reading of every source, and the docs follow.
@Suite(.timeLimit(.minutes(2)))
struct SettingDeclarationTests {
    static let docs = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/configuration.md")

    @Test func theDocsTableIsWhatTheDeclarationsGive() throws {
        // Given docs/configuration.md as committed
        let committed = try String(contentsOf: Self.docs, encoding: .utf8)

        // Then it is what `thumbd settings --markdown` prints now
        #expect(committed == Settings.markdown, "regenerate it: thumbd settings --markdown > docs/configuration.md")
    }

    /// The arguments that give `value` to a setting as a flag.
    static func flagArguments(_ setting: Setting<Settings>, _ value: String) -> [String] {
        if case .flag = setting.kind { return ["--\(setting.flag)"] }
        return ["--\(setting.flag)", value]
    }

    @Test func everySettingRoundTripsFromEachSource() throws {
        for setting in Settings.declared { try Self.roundTrip(setting) }
    }

    static func roundTrip(_ setting: Setting<Settings>) throws {
        let value = if case .flag = setting.kind { "true" } else { "some value" }

        // From THUMBD_, and IMGPROXY_ where imgproxy has the setting
        for name in setting.environmentNames {
            let found = SettingSources(environment: [name: value]).lookup()(setting)
            #expect(found?.value == value && found?.origin == name, "\(name)")
        }
        // and from no IMGPROXY_ name but imgproxy's own for it
        let sameName = "IMGPROXY_\(setting.name)"
        let unread = SettingSources(environment: [sameName: value]).lookup()(setting)
        #expect((unread != nil) == (setting.imgproxyName == setting.name), "\(sameName)")

        // From the flag, both spellings
        let (flags, rest) = try SettingFlags.split(flagArguments(setting, value) + ["/path"])
        #expect(rest == ["/path"])
        let found = SettingSources(flags: flags, environment: [:]).lookup()(setting)
        #expect(found?.value == value && found?.origin == "--\(setting.flag)")
        if case .flag = setting.kind {} else {
            #expect(try SettingFlags.split(["--\(setting.flag)=\(value)"]).settings == [setting.name: value])
        }
    }

    @Test func aFlagWinsOverThumbdWhichWinsOverImgproxyWhichWinsOverTheFile() throws {
        // Given MAX_REDIRECTS in every source
        let file = NSTemporaryDirectory() + "thumbd-settings-\(UUID().uuidString).json"
        try Data(#"{"max_redirects": 4, "timeout": 7}"#.utf8).write(to: URL(fileURLWithPath: file))
        defer { unlink(file) }
        let environment = ["THUMBD_CONFIG": file, "IMGPROXY_MAX_REDIRECTS": "3", "THUMBD_MAX_REDIRECTS": "2"]

        // Then each source wins over the ones after it
        let load = { (flags: [String: String], environment: [String: String]) in
            try SettingSources(flags: flags, environment: environment).load().get()
        }
        #expect(try load(["MAX_REDIRECTS": "1"], environment).fetch.maxRedirects == 1)
        #expect(try load([:], environment).fetch.maxRedirects == 2)
        #expect(try load([:], environment.filter { $0.key != "THUMBD_MAX_REDIRECTS" }).fetch.maxRedirects == 3)
        #expect(try load([:], ["THUMBD_CONFIG": file]).fetch.maxRedirects == 4)
        #expect(try load([:], ["THUMBD_CONFIG": file]).limits.requestTimeout == 7)
    }

    @Test func aSettingsFileGivesListsAndSwitchesAndItsProblemsNameIt() throws {
        let file = NSTemporaryDirectory() + "thumbd-settings-\(UUID().uuidString).json"
        try Data(#"{"allowed_sources": ["https://a.example/", "https://b.example/"], "only_presets": true, "workers": 0}"#.utf8)
            .write(to: URL(fileURLWithPath: file))
        defer { unlink(file) }

        let result = SettingSources(flags: ["CONFIG": file], environment: [:]).load()

        guard case .failure(let problems) = result else { Issue.record("workers 0 accepted"); return }
        #expect(problems.messages == ["workers in \(file)=\"0\": expected a whole number from 1 to 1024"])
        let fixed = try SettingSources(flags: ["CONFIG": file, "WORKERS": "2"], environment: [:]).load().get()
        #expect(fixed.allowedSources == SourceAllowList(prefixes: ["https://a.example/", "https://b.example/"]))
        #expect(fixed.options.onlyPresets)
        #expect(SettingSources(flags: ["CONFIG": "/nonexistent.json"], environment: [:]).load().problemCount == 1)
    }

    @Test func aMisspeltKeyInTheSettingsFileIsAProblemNotADefault() throws {
        let file = NSTemporaryDirectory() + "thumbd-settings-\(UUID().uuidString).json"
        try Data(#"{"workers": 2, "max_src_file_sise": 1000}"#.utf8).write(to: URL(fileURLWithPath: file))
        defer { unlink(file) }

        let result = SettingSources(flags: ["CONFIG": file], environment: [:]).load()

        guard case .failure(let problems) = result else { Issue.record("a misspelt key was accepted"); return }
        #expect(problems.messages == ["--config=\(file.debugDescription): no such setting: max_src_file_sise"])
    }
}

extension Result where Failure == Settings.Problems {
    fileprivate var problemCount: Int {
        guard case .failure(let problems) = self else { return 0 }
        return problems.messages.count
    }
}

/// The settings file in the environment file's format, which the package's /etc/thumbd/thumbd.env is.
@Suite(.timeLimit(.minutes(2)))
struct EnvironmentFileTests {
    @Test func linesCommentsQuotesAndExportAreReadAsSystemdReadsThem() throws {
        let text = """
            # signing
            THUMBD_KEY=6b6579
            export THUMBD_SALT="73616c74"

              THUMBD_PRESETS='small=w:30'
            IMGPROXY_WORKERS=3\u{20}\u{20}
            """
        #expect(try EnvironmentFile.variables(text) == [
            "THUMBD_KEY": "6b6579", "THUMBD_SALT": "73616c74", "THUMBD_PRESETS": "small=w:30", "IMGPROXY_WORKERS": "3",
        ])
        #expect(throws: EnvironmentFile.Malformed.self) { try EnvironmentFile.variables("THUMBD_KEY 6b6579") }
        #expect(throws: EnvironmentFile.Malformed.self) { try EnvironmentFile.variables("=value") }
    }

    @Test func anEnvironmentFileSetsWhatTheEnvironmentLeavesAndNamesEveryProblem() throws {
        let file = NSTemporaryDirectory() + "thumbd-settings-\(UUID().uuidString).env"
        try Data("THUMBD_WORKERS=3\nIMGPROXY_LOG_LEVEL=debug\nTHUMBD_KEY=6b6579\nTHUMBD_SALT=73616c74\n".utf8)
            .write(to: URL(fileURLWithPath: file))
        defer { unlink(file) }

        let settings = try SettingSources(flags: ["CONFIG": file], environment: ["THUMBD_WORKERS": "5"]).load().get()

        #expect(settings.workers == 5)
        #expect(settings.logLevel == .debug)
        #expect(settings.signing.isConfigured)

        try Data("THUMBD_WORKERS=0\nTHUMBD_WORKRES=2\n".utf8).write(to: URL(fileURLWithPath: file))
        guard case .failure(let problems) = SettingSources(flags: ["CONFIG": file], environment: [:]).load() else {
            Issue.record("a misspelt name was accepted")
            return
        }
        #expect(problems.messages == [
            "--config=\(file.debugDescription): THUMBD_WORKRES: no such setting (did you mean THUMBD_WORKERS?)",
        ])
    }
}
