import ArgumentParser
import ThumbRuntime

/// `thumbd settings`: every setting as `--help` lists it, or as the docs' table.
struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "List every setting: flag, environment names, default, range and help."
    )

    @Flag(help: "Print docs/configuration.md, the Markdown table, instead.")
    var markdown = false

    @Flag(help: "Print the manual page, thumbd(1), instead.")
    var man = false

    func run() {
        if man {
            print(Settings.manPage(version: ThumbdVersion.current), terminator: "")
        } else {
            print(markdown ? Settings.markdown : SettingFlags.help, terminator: markdown ? "" : "\n")
        }
    }
}
