import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import ThumbRequest
import ThumbRuntime
import ThumbServer

/// `thumbd nginx-config site|front`: the nginx configs thumbd runs behind, written by the binary
/// itself, so every deployment (a package, deploy/run, deploy/cluster, the tests, the benches)
/// writes them one way.
public struct NginxConfigCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "nginx-config",
        abstract: "Print thumbd's nginx site, or the front of several thumbd hosts.",
        discussion: "Every value is checked: the configs are read by nginx's master, as root.",
        subcommands: [Site.self, Front.self]
    )

    public init() {}
}

extension NginxConfigCommand {
    public struct Site: ParsableCommand {
        public static let configuration = CommandConfiguration(
            commandName: "site",
            abstract: "Print thumbd's nginx site: nginx serves stored thumbnails, misses go to thumbd.",
            discussion: """
            Example: thumbd nginx-config site --server-name thumbs.example.com --socket unix:/run/thumbd/thumbd.sock \
            --output /etc/nginx/sites-available/thumbd
            """
        )

        @Option(name: .customLong("server-name"),
                help: ArgumentHelp("A name the site answers for; repeat for several. (default: "
                    + "\(NginxSite().serverNames[0]), none: the site answers only where it is the default server)"),
                transform: NginxValue.serverName)
        var serverNames: [String] = []

        @Option(help: "Where nginx listens: a port or address:port. (default: \(NginxSite().listen))",
                transform: NginxValue.listen)
        var listen: NginxAddress?

        @Option(help: "thumbd's --cache-root, an absolute path. (default: \(NginxSite().cacheRoot))",
                transform: NginxValue.path)
        var cacheRoot: String?

        @Option(name: .customLong("socket"),
                help: ArgumentHelp("thumbd's --listen: unix:/path or host:port; repeat for several thumbd processes "
                    + "on the cache. (default: \(NginxSite().sockets[0]))"),
                transform: NginxValue.socket)
        var sockets: [ListenAddress] = []

        @Option(help: "thumbd's --cache-hits-log, or off to report no hits. (default: <cache root>.hits.log)",
                transform: NginxValue.log)
        var hitsLog: NginxLog?

        @Option(help: "The access log, kept where hits are logged too, or off. (default: \(NginxSite().accessLog))",
                transform: NginxValue.log)
        var accessLog: NginxLog?

        @Option(help: "A glob of files of extra locations (`location =` or `location ^~` only) to include.",
                transform: NginxValue.glob)
        var extras: String?

        @Option(name: .customLong("enforce"),
                help: ArgumentHelp("A format thumbd enforces over the URL's (ENFORCE_AVIF, ENFORCE_JXL, "
                    + "ENFORCE_WEBP): avif, jxl or webp; repeat for several."),
                transform: NginxValue.enforcedFormat)
        var enforced: [ImageFormat] = []

        @Option(name: .customLong("auto"),
                help: ArgumentHelp("A format thumbd negotiates URLs without one to (AUTO_AVIF, AUTO_JXL, AUTO_WEBP): "
                    + "avif, jxl or webp; repeat for several. (default: avif and webp)"),
                transform: NginxValue.negotiatedFormat)
        var negotiated: [ImageFormat] = []

        @Option(help: ArgumentHelp("thumbd's FORMAT_NEGOTIATION_ORDER: avif, jxl and webp, comma-separated. "
                    + "(default: \(FormatNegotiation.defaultOrder.map(\.rawValue).joined(separator: ",")))"),
                transform: NginxValue.negotiationOrder)
        var order: [ImageFormat]?

        @Flag(help: "thumbd's BEST_FORMAT_BY_DEFAULT is on: URLs without a format look for the best format's file first.")
        var bestByDefault = false

        @OptionGroup var output: NginxConfigOutput

        public init() {}

        var site: NginxSite {
            var site = NginxSite()
            if !serverNames.isEmpty { site.serverNames = serverNames }
            if let listen { site.listen = listen }
            if let cacheRoot { site.cacheRoot = cacheRoot }
            if !sockets.isEmpty { site.sockets = sockets }
            site.hitsLog = hitsLog
            if let accessLog { site.accessLog = accessLog }
            site.extras = extras
            if let order { site.order = order }
            site.bestByDefault = bestByDefault
            site.enforcedFormats = Set(enforced)
            if !negotiated.isEmpty { site.negotiatedFormats = Set(negotiated) }
            return site
        }

        public func run() throws {
            try output.write(site.text)
        }
    }

    public struct Front: ParsableCommand {
        public static let configuration = CommandConfiguration(
            commandName: "front",
            abstract: "Print the front of several thumbd hosts: every URL of one source goes to one host.",
            discussion: "Example: thumbd nginx-config front --host 10.0.0.11:80 --host 10.0.0.12:80 --listen 80"
        )

        @Option(help: "Where the front listens: a port or address:port. (default: \(NginxFront(hosts: []).listen))",
                transform: NginxValue.listen)
        var listen: NginxAddress?

        @Option(name: .customLong("host"), help: "A host's nginx, address:port; once per host.",
                transform: NginxValue.address)
        var hosts: [NginxAddress] = []

        @Option(help: "The front's log (which host answered), or off. (default: \(NginxFront(hosts: []).accessLog))",
                transform: NginxValue.log)
        var accessLog: NginxLog?

        @OptionGroup var output: NginxConfigOutput

        public init() {}

        public func validate() throws {
            guard !hosts.isEmpty else { throw ValidationError("give at least one --host") }
        }

        var front: NginxFront {
            var front = NginxFront(hosts: hosts)
            if let listen { front.listen = listen }
            if let accessLog { front.accessLog = accessLog }
            return front
        }

        public func run() throws {
            try output.write(front.text)
        }
    }
}

/// Where a config goes: standard output, or a file replaced whole, so that nginx (a reload, a
/// `nginx -t`) never reads half of it.
struct NginxConfigOutput: ParsableArguments {
    @Option(help: "Write to FILE (a temp file beside it, then renamed over it) instead of standard output.")
    var output: String?

    func write(_ text: String) throws {
        guard let output else {
            print(text, terminator: "")
            return
        }
        let target = output.contains("/") ? output : "./" + output
        let temp = try FileSystem.makeTempFile(besides: target)
        let tempPath = temp.path
        do {
            try FileSystem.writeAll(Array(text.utf8), to: temp.file)
            try temp.close()
            try FileSystem.rename(tempPath, to: target)
        } catch {
            unlink(tempPath)
            throw error
        }
    }
}
