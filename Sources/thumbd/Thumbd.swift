import ArgumentParser
import ThumbOps
import ThumbRuntime

@main
struct Thumbd: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Makes thumbnails for nginx over FastCGI, with imgproxy-compatible URLs.",
        discussion: """
        Every setting can also be set in the environment as THUMBD_<NAME> (e.g. THUMBD_KEY), where \
        imgproxy has the same setting as IMGPROXY_<NAME>, and in a settings file (--config). A \
        flag wins over THUMBD_, which wins over IMGPROXY_, which wins over the file. `thumbd serve \
        --help` lists them all, docs/configuration.md too; `cache` and `warm` take a few as flags, \
        which their `--help` lists.
        """,
        version: ThumbdVersion.line,
        subcommands: [ServeCommand.self, SignCommand<Settings>.self, RenderCommand.self, CacheCommand.self, WarmCommand<Settings>.self,
                      SettingsCommand.self, NginxConfigCommand.self],
        defaultSubcommand: ServeCommand.self
    )

    /// The settings' flags the command takes are taken out first (SettingFlags), then ArgumentParser
    /// runs the command with them bound to `SettingFlags.given`.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            let (settings, rest) = try SettingFlags.split(arguments)
            SettingFlags.$given.withValue(settings) { main(rest) }
        } catch {
            exit(withError: error)
        }
    }
}
