import ThumbCache
import ThumbRequest
import ThumbServer

/// thumbd's nginx site, as `thumbd nginx-config site` writes it: its template
/// (thumbd-site.conf.template, compiled into the binary) with the parts computed here filled in.
/// The template's comments document each directive and go into every site written.
struct NginxSite {
    /// `_`: no name of its own; the site then answers only where it is nginx's default server.
    var serverNames = ["_"]
    var listen = NginxAddress(host: nil, port: 80)
    var cacheRoot = CacheSettings.defaultRoot
    /// thumbd's --listen, one per thumbd process on the cache; several make an upstream.
    var sockets = [FastCGIServer.Settings().address]
    /// nil: thumbd's default beside the cache root.
    var hitsLog: NginxLog?
    var accessLog = NginxLog.file("/var/log/nginx/access.log")
    /// A glob of files of extra locations, included in the server.
    var extras: String?
    /// thumbd's ENFORCE_*: the formats a client's Accept picks even over the format a URL names.
    var enforcedFormats: Set<ImageFormat> = []
    /// thumbd's AUTO_*: the formats a URL without one is negotiated to. The map must know which
    /// are on: with AUTO_WEBP alone, a client accepting both would be offered an AVIF that is
    /// never made, and every request would reach thumbd.
    var negotiatedFormats = Self.defaultNegotiated
    /// thumbd's FORMAT_NEGOTIATION_ORDER: the maps try the formats in it, as thumbd does.
    var order = FormatNegotiation.defaultOrder
    /// thumbd's BEST_FORMAT_BY_DEFAULT: URLs without a format look for the best format's file first.
    var bestByDefault = false

    /// thumbd's defaults in the demo and the package: AVIF and WebP.
    static let defaultNegotiated: Set<ImageFormat> = [.avif, .webp]

    private var enforced: [ImageFormat] { order.filter(enforcedFormats.contains) }
    /// The classes of clients the best format tells apart: thumbd's choice for a URL without a
    /// format, the negotiated and the enforced formats, in order.
    private var bestClasses: [ImageFormat] { order.filter { negotiatedFormats.contains($0) || enforcedFormats.contains($0) } }
    private var negotiated: [ImageFormat] { order.filter(negotiatedFormats.contains) }

    /// The upstream several sockets make.
    static let upstreamName = "thumbd_instances"

    var effectiveHitsLog: NginxLog { hitsLog ?? .file(CacheSettings().hitsLogPath(root: cacheRoot)) }

    /// The arguments that write this site again, an option and its value a group.
    var arguments: [[String]] {
        var arguments = [["site"]]
        arguments += serverNames.map { ["--server-name", $0] }
        arguments += [["--listen", "\(listen)"], ["--cache-root", cacheRoot]]
        arguments += sockets.map { ["--socket", "\($0)"] }
        arguments += [["--hits-log", "\(effectiveHitsLog)"], ["--access-log", "\(accessLog)"]]
        if let extras { arguments.append(["--extras", extras]) }
        arguments += enforced.map { ["--enforce", $0.rawValue] }
        if negotiatedFormats != Self.defaultNegotiated { arguments += negotiated.map { ["--auto", $0.rawValue] } }
        if order != FormatNegotiation.defaultOrder { arguments.append(["--order", order.map(\.rawValue).joined(separator: ",")]) }
        if bestByDefault { arguments.append(["--best-by-default"]) }
        return arguments
    }

    /// fastcgi_pass's address: the socket, or the upstream of several.
    private var fastCGIPass: String { sockets.count == 1 ? "\(sockets[0])" : Self.upstreamName }

    private var upstream: String {
        guard sockets.count > 1 else { return "" }
        return """

            # Several thumbd processes on one cache: nginx spreads the misses over them.
            upstream \(Self.upstreamName) {
            \(sockets.map { "    server \($0);" }.joined(separator: "\n"))
            }

            """
    }

    /// What the locations that log hits log, in their place of the server's access log (nginx
    /// drops an inherited access_log in a location that declares its own): the operator's log
    /// again, then the hits.
    private var hitLocationLogs: String { hitLocationLogs(indent: 8) }

    private func hitLocationLogs(indent: Int) -> String {
        guard let hits = effectiveHitsLog.directive(format: "thumbd_hits", buffer: "buffer=64k flush=1s if=$thumbd_served")
        else { return "" }
        return [accessLog.directive(), hits].compactMap { $0 }.map { "\n" + String(repeating: " ", count: indent) + $0 }.joined()
    }

    /// The locations for URLs that name their format or ask for the best: one regex takes the
    /// signature, and fails every URL without an `@` at once; inside it a location per format,
    /// each looking only at the URI's end, gives the file and its type. The best format's comes
    /// first: every nested regex a URL fails costs its hit alike, and the best format's hit
    /// already pays for a map and a second lookup.
    private var namedFormatLocations: String {
        let suffixes = ImageFormat.allCases.map { $0 == .jpeg ? "jpe?g" : $0.rawValue }
        let perFormat = ([bestLocation(suffix: "@best")] + zip(ImageFormat.allCases, suffixes).map { format, suffix in
            enforced.isEmpty ? namedFormatLocation(format, suffix: suffix) : enforcedLocation(format, suffix: suffix)
        }).joined(separator: "\n\n")
        let nested = perFormat.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "" : "    " + $0 }.joined(separator: "\n")
        return #"""
                location ~ "^/(?<thumbd_c>[A-Za-z0-9_-])(?<thumbd_s>[A-Za-z0-9_-]+)/.*@(\#((suffixes + ["best"]).joined(separator: "|")))$" {
            \#(nested)
                }
            """#
    }

    /// A URL that names its format: its file is {signature}.{ext}, with the format's type.
    private func namedFormatLocation(_ format: ImageFormat, suffix: String) -> String {
        #"""
            location ~ "@\#(suffix)$" {
                alias \#(cacheRoot)/served/$thumbd_c/$thumbd_c$thumbd_s.\#(format.fileExtension);
                types {}
                default_type \#(format.mimeType);
                add_header Cache-Control "\#(ThumbnailLifetime.cacheControl)";\#(hitLocationLogs(indent: 8))
                log_not_found off;
                error_page 404 = @thumbd;
            }
        """#
    }

    /// The best format's location, nested in the one that took the signature: `@best` beside the
    /// named formats, `.best` (a base64 source's) in the location for every other URL; a `[@.]`
    /// in the named formats' regex would keep it from skipping every URL without an `@`. The
    /// first name tried is the class's own format; the file's extension gives the type, as no
    /// directive takes it from a variable.
    private func bestLocation(suffix: String) -> String {
        #"""
            # The best format: the smallest candidate for the client's class ($thumbd_best) is at
            # {signature}.best{class}.{ext}, whichever format won; the first name tried is the
            # class's own format, which wins for most photos.
            location ~ "\#(suffix)$" {
                types {
        \#(typesBlock)
                }
                default_type application/octet-stream;
                \#(tryFiles(bestProbes("/$thumbd_c/$thumbd_c$thumbd_s.best") + [["@thumbd;"]]))
                add_header Cache-Control "\#(ThumbnailLifetime.cacheControl)";\#(bestClasses.isEmpty ? "" : "\n        add_header Vary Accept;")\#(hitLocationLogs(indent: 8))
            }
        """#
    }

    /// A URL that names its format while a format is enforced: the client's enforced format
    /// ({signature}.auto.{avif,jxl,webp}), else the source itself where the URL skips processing (the
    /// same for every client), else the named format for clients that accept no enforced one.
    private func enforcedLocation(_ format: ImageFormat, suffix: String) -> String {
        let name = "/$thumbd_c/$thumbd_c$thumbd_s"
        return #"""
                location ~ "@\#(suffix)$" {
                    types {
            \#(typesBlock)
                    }
                    try_files \#(name)$thumbd_enforced \#(name).\#(format.fileExtension)
                              \#(name)$thumbd_enforced_plain.\#(format.fileExtension) @thumbd;
                    add_header Cache-Control "\#(ThumbnailLifetime.cacheControl)";
                    add_header Vary Accept;\#(hitLocationLogs(indent: 8))
                }
            """#
    }

    /// With formats enforced, the maps that pick the client's file in the named-format locations.
    private var enforcedMaps: String {
        guard !enforced.isEmpty else { return "" }
        let lines = enforced.map { "    ~image/\($0.rawValue) .auto.\($0.rawValue);" }
        let plain = enforced.map { "    ~image/\($0.rawValue) /.none;" }
        return "\n\n" + """
            # Formats enforced (THUMBD_ENFORCE_\(enforced.map { $0.rawValue.uppercased() }.joined(separator: ", THUMBD_ENFORCE_"))): a URL that
            # names its format answers a client whose Accept has an enforced format in that format,
            # at {signature}.auto.{avif,jxl,webp}; other clients get {signature}.auto.none.{ext}.
            map $http_accept $thumbd_enforced {
            \(lines.joined(separator: "\n"))
                default     .auto.none;
            }

            map $http_accept $thumbd_enforced_plain {
            \(plain.joined(separator: "\n"))
                default     .auto.none;
            }
            """
    }

    /// `.auto.webp`, or `.auto.{avif,webp}`
    private var negotiatedNames: String {
        let names = negotiated.map(\.rawValue)
        return ".auto." + (names.count == 1 ? names[0] : "{\(names.joined(separator: ","))}")
    }

    /// A map's lines for the clients that accept a negotiated format, in thumbd's order.
    private func negotiatedMapLines(_ value: (ImageFormat) -> String) -> String {
        negotiated.map { "    ~image/\($0.rawValue) \(value($0));" }.joined(separator: "\n")
    }

    private var typesBlock: String {
        ImageFormat.allCases.map { "            \($0.mimeType.padding(toLength: 10, withPad: " ", startingAt: 0)) \($0.fileExtension);" }
            .joined(separator: "\n")
    }

    /// A map's lines for the classes of the best format, in thumbd's order.
    private func bestMapLines(_ value: (ImageFormat) -> String) -> String {
        bestClasses.map { "    ~image/\($0.rawValue) \(value($0));" }.joined(separator: "\n")
    }

    /// With classes, their names vary by Accept; the location for URLs without a format serves
    /// them only where the best format is the default.
    private var bestVary: String {
        guard bestByDefault, !bestClasses.isEmpty else { return "" }
        return "\n    ~\\.best\\.(\(bestClasses.map(\.rawValue).joined(separator: "|"))|none)\\. Accept;"
    }

    /// Where the best format's winner may be, a few names a line: the class's own format first,
    /// then every other.
    private func bestProbes(_ name: String) -> [[String]] {
        let others = [ImageFormat.png, .jpeg, .webp, .avif, .jxl, .gif].map { "\(name)$thumbd_best.\($0.fileExtension)" }
        return [["\(name)$thumbd_best_first", others[0]], Array(others[1..<3]), Array(others[3..<5]), [others[5]]]
    }

    private func tryFiles(_ lines: [[String]], indent: Int = 18) -> String {
        "try_files " + lines.map { $0.joined(separator: " ") }.joined(separator: "\n" + String(repeating: " ", count: indent))
    }

    /// For URLs without a format: the best format's names first where it is the default, then the
    /// negotiated name, the plain names, and the plain rendition's.
    private var tryFiles: String {
        let name = "/$thumbd_c/$thumbd_c$thumbd_s"
        let plain = CachePath.probeOrder.map { "\(name).\($0.fileExtension)" }
        let negotiated = [ImageFormat.jpeg, .png, .gif, .webp, .avif, .jxl].map { "\(name)$thumbd_plain.\($0.fileExtension)" }
        let lines = [["\(name)$thumbd_negotiated"], Array(plain[0..<3]), Array(plain[3...]), Array(negotiated[0..<2]),
                     Array(negotiated[2..<4]), Array(negotiated[4..<6]), ["@thumbd;"]]
        return tryFiles((bestByDefault ? bestProbes("/$thumbd_c/$thumbd_c$thumbd_s.best") : []) + lines)
    }

    private var accessLogLine: String { accessLog.directive() ?? "access_log off;" }

    /// The operator's access log again, in the format with the request id.
    private var missLog: String {
        accessLog.directive(format: "thumbd_misses").map { "\n        " + $0 } ?? ""
    }

    private var extrasInclude: String {
        guard let extras else { return "" }
        return "\n\n    include \(extras);"
    }

    /// The site: the template (thumbd-site.conf.template, embedded at build time) with its
    /// computed parts filled in.
    var text: String {
        NginxTemplate.filled(PackageResources.thumbd_site_conf_template, with: [
            "command_line": NginxValue.commandLine(arguments),
            "upstream": upstream,
            "auto_settings": negotiated.map { $0.rawValue.uppercased() }.joined(separator: ", THUMBD_AUTO_"),
            "negotiated_names": negotiatedNames,
            "negotiated_map": negotiatedMapLines { ".auto.\($0.rawValue)" },
            "plain_map": negotiatedMapLines { _ in "/.none" },
            "best_vary": bestVary,
            "enforced_maps": enforcedMaps,
            "best_map": bestMapLines { ".\($0.rawValue)" },
            "best_default": bestClasses.isEmpty ? "\"\"" : ".none",
            "best_first_map": bestMapLines { ".\($0.rawValue).\($0.fileExtension)" },
            "best_first_default": bestClasses.isEmpty ? "" : ".none",
            "listen": "\(listen)",
            "server_names": serverNames.joined(separator: " "),
            "access_log": accessLogLine,
            "cache_root": cacheRoot,
            "named_format_locations": namedFormatLocations,
            "types": typesBlock,
            "try_files": tryFiles,
            "cache_control": ThumbnailLifetime.cacheControl,
            "hit_logs": hitLocationLogs,
            "best_location": bestLocation(suffix: #"\.best"#).split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.isEmpty ? "" : "    " + $0 }.joined(separator: "\n"),
            "fastcgi_pass": fastCGIPass,
            "miss_log": missLog,
            "extras": extrasInclude,
        ])
    }
}
