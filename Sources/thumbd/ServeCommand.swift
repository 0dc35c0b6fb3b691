import ArgumentParser

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve FastCGI requests from nginx (the default)."
    )

    @OptionGroup var settings: SettingsOptions

    func run() throws {
        try Service(configuration: settings.configuration(signingURLs: true)).run()
    }
}
