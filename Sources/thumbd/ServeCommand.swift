import ArgumentParser
import ThumbRuntime

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve FastCGI requests from nginx (the default).",
        discussion: SettingFlags.help
    )

    func run() throws {
        Signals.startWithDefaults(taking: Service.stopSignals + [Service.reloadSignal] + Service.ignoredSignals)
        try Service(configuration: Settings.commandLine(signingURLs: true)).run()
    }
}
