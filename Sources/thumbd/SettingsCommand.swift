import ArgumentParser

/// `thumbd settings`: every setting as `--help` lists it, or as the docs' table.
struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "List every setting: flag, environment names, default, range and help."
    )

    @Flag(help: "Print docs/configuration.md, the Markdown table, instead.")
    var markdown = false

    func run() {
        print(markdown ? Setting.markdown : SettingFlags.help, terminator: markdown ? "" : "\n")
    }
}
