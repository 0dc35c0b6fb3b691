import ArgumentParser

public struct SignCommand<Settings: OpsSettings>: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "sign",
            abstract: "Print the signed URL path for each PATH with the configured key and salt, one per line.",
            discussion: "Example: thumbd sign --key 736563726574 --salt 68656C6C6F /rs:fill:300:200/plain/https://example.com/cat.jpg@webp\n\n"
                + Settings.flagsHelp(for: "sign")
        )
    }

    @Argument(help: "Paths after the signature, each starting with /: options, then the source.")
    var paths: [String]

    public init() {}

    public func validate() throws {
        guard !paths.isEmpty else { throw ValidationError("give at least one PATH") }
        guard paths.allSatisfy({ $0.hasPrefix("/") }) else { throw ValidationError("each PATH must start with /") }
    }

    public func run() throws {
        let signing = try Settings.commandLine(flags: Settings.givenFlags, signingURLs: true).signing
        for path in paths {
            print(signing.signedPath(path))
        }
    }
}
