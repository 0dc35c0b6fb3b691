import ArgumentParser
import ThumbRuntime

@main
struct Thumbd: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Makes thumbnails for nginx over FastCGI, with imgproxy-compatible URLs.",
        discussion: """
        Every option can also be set in the environment as THUMBD_<NAME> (e.g. THUMBD_KEY), and \
        where imgproxy has the same setting, as IMGPROXY_<NAME>. A flag wins over THUMBD_, which \
        wins over IMGPROXY_.
        """,
        version: ThumbdVersion.current,
        subcommands: [ServeCommand.self, SignCommand.self, RenderCommand.self, CacheCommand.self, WarmCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}
