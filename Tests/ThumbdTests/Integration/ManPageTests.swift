import ArgumentParser
import Foundation
import Testing
import ThumbdTestSupport
@testable import thumbd

/// thumbd(1), as the package installs it: every subcommand and every setting, in markup groff
/// reads without a warning.
@Suite(.blocking, .timeLimit(.minutes(1)))
struct ManPageTests {
    static let page = Settings.manPage(version: "1.2.3")

    @Test func everySubcommandAndEverySettingIsOnThePage() {
        // Given the page, as groff's source
        let page = Self.page

        // Then each command (subcommands' too) and each setting's flag and environment names are on it
        func names(_ command: ParsableCommand.Type, _ prefix: String) -> [String] {
            let name = prefix + " " + (command.configuration.commandName ?? command._commandName)
            return [name] + command.configuration.subcommands.flatMap { names($0, name) }
        }
        for command in Thumbd.configuration.subcommands.flatMap({ names($0, "thumbd") }) {
            #expect(page.contains(#"\fB\#(command.replacingOccurrences(of: "-", with: "\\-"))\fR"#), "\(command)")
        }
        for setting in Settings.declared {
            #expect(page.contains(#"\fB\-\-\#(setting.flag.replacingOccurrences(of: "-", with: "\\-"))\fR"#), "\(setting.name)")
            for name in setting.environmentNames { #expect(page.contains(name), "\(name)") }
        }
        #expect(page.hasPrefix(#".TH THUMBD 1 "" "thumbd 1.2.3""#))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/groff"), "needs groff"))
    func groffReadsThePageWithoutAWarning() throws {
        let run = try ProcessRunner.run("/usr/bin/groff", ["-man", "-ww", "-z"], input: Array(Self.page.utf8))
        #expect(run.status == 0 && run.errors.isEmpty, "\(run.errors)")
    }
}
