import ThumbCache
import ThumbRequest
import ThumbServer

/// thumbd's nginx site, as `thumbd nginx-config site` writes it: the one place its text is
/// written (a package's binary has no template beside it to read). Its comments document each
/// directive and go into every site written.
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

    var text: String {
        #"""
        # thumbd's nginx site. nginx serves every thumbnail that exists as a static file; only a miss
        # reaches thumbd, which writes the file where the locations below look for it, then answers.
        #
        # Written by `thumbd nginx-config`; to change it, write it again rather than edit it:
        #   \#(NginxValue.commandLine(arguments))
        #
        #   --server-name   the names the site answers for; `_`, none: the site then answers only
        #                   where it is nginx's default server (Debian's default site is, on :80)
        #   --listen        where nginx listens, e.g. 80 or 127.0.0.1:8080
        #   --cache-root    thumbd's --cache-root
        #   --socket        thumbd's --listen: unix:/run/thumbd/thumbd.sock or 127.0.0.1:9000; one
        #                   per thumbd process on the cache (several: an upstream)
        #   --hits-log      thumbd's --cache-hits-log (default <cache root>.hits.log), or off
        #   --access-log    the operator's access log, kept where hits are logged too, or off
        #   --extras        a glob of extra location files (the demo origin); may match nothing. Their
        #                   locations must be `location = ` or `location ^~ `: the regexes below take
        #                   every URI whose first segment could be a signature.
        #   --enforce       a format of thumbd's ENFORCE_AVIF / _JXL / _WEBP, once each
        #   --auto          a format of thumbd's AUTO_AVIF / _JXL / _WEBP, once each; avif and webp when
        #                   not given
        #   --order         thumbd's FORMAT_NEGOTIATION_ORDER, when not avif,jxl,webp
        #   --best-by-default  thumbd's BEST_FORMAT_BY_DEFAULT is on
        \#(upstream)
        # Format negotiation (THUMBD_AUTO_\#(negotiated.map { $0.rawValue.uppercased() }.joined(separator: ", THUMBD_AUTO_"))): every rendition of a URL without a
        # format lives at {signature}\#(negotiatedNames) or, for clients that accept neither,
        # {signature}.auto.none.{ext}. Each client is offered only its own, so whoever asks first, each
        # gets (or makes) the right one.
        map $http_accept $thumbd_negotiated {
        \#(negotiatedMapLines { ".auto.\($0.rawValue)" })
            default     .auto.none;
        }

        # The plain rendition's name for clients that accept neither; for the others a name that never
        # exists.
        map $http_accept $thumbd_plain {
        \#(negotiatedMapLines { _ in "/.none" })
            default     .auto.none;
        }

        # After try_files, $uri names the file served: every .auto. rendition varies by Accept, and
        # every best format's file stored for a class of clients.
        map $uri $thumbd_vary {
            ~\.auto\. Accept;\#(bestVary)
            default "";
        }\#(enforcedMaps)

        # The best format (thumbd's f:best, @best): the class of the client, as thumbd tells it (the
        # first format in its order that the client accepts), and the name to try first, in the
        # class's own format.
        map $http_accept $thumbd_best {
        \#(bestMapLines { ".\($0.rawValue)" })
            default     \#(bestClasses.isEmpty ? "\"\"" : ".none");
        }

        map $http_accept $thumbd_best_first {
        \#(bestMapLines { ".\($0.rawValue).\($0.fileExtension)" })
            default     \#(bestClasses.isEmpty ? "" : ".none").jpg;
        }

        # Hits never reach thumbd, so nginx tells it which files it served: $request_filename, the file's
        # path on disk (the cache root, then /served/{c}/{name}). Buffered, this costs one write per 64 KiB
        # of hits; unescaped, 1.4 % more instructions per hit (bench/cache-index).
        # thumbd reads the log within a second, records the uses in its cache index (eviction keeps what
        # is used) and empties it.
        log_format thumbd_hits escape=none '$request_filename';
        # Only what was served is a hit: an error nginx answered instead (a 500 when it ran out of
        # descriptors, a 416 for a bad range) says nothing about what people look at.
        map $status $thumbd_served {
            ~^(200|206|304)$ 1;
            default 0;
        }

        # What reaches thumbd is logged with nginx's $request_id, which thumbd logs too: one id ties
        # the two lines. Hits keep the operator's format (an id is random bytes each request).
        log_format thumbd_misses '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent '
                                 '"$http_referer" "$http_user_agent" $request_id';

        server {
            listen \#(listen);
            server_name \#(serverNames.joined(separator: " "));

            # The operator's access log. The locations that log hits for thumbd name it again: nginx
            # drops an inherited access_log in a location that declares its own.
            \#(accessLogLine)

            # Plain sources carry whole URLs: keep "http://" intact in the URI thumbd is passed.
            merge_slashes off;
            # A request's own structures and header lists outgrow nginx's default 4 KiB request pool, so
            # each request mallocs a second block: 8 KiB saves that, 3.9 % of a hit's instructions
            # (callgrind, 2,000 hits: 20,591 to 19,815; 2.2 % for plain nginx, which bench/run's ceiling
            # therefore has too).
            request_pool_size 8k;
            # Every thumbnail nginx may serve to anyone, and nothing else: served/{c}/{name}, where {name}
            # is the URL's signature (its first segment, which begins with {c}) and a suffix. Thumbnails
            # only thumbd may answer for (an expiry it checks on every request, a download name, insecure
            # mode's) live beside it in private/, which no location below serves by a client's URI.
            root \#(cacheRoot)/served;
            # thumbd owns everything below the cache root: a link it put there (a decoder bug turned
            # against it) would have nginx serve a file thumbd cannot read itself. No link below the
            # cache root is followed: not `from=$document_root`, which is the whole file's path in the
            # locations that alias one (nothing would be checked) and leaves served/ itself unchecked.
            # What it costs a hit: bench/hit-cost.
            disable_symlinks on from=\#(cacheRoot);

            # Hits keep their file open between requests: a hit costs no open, fstat and close, which
            # is most of what separated a hit from plain static serving (0.55x to 0.95x+, bench/run).
            # A file purged, evicted or replaced is looked up again within open_file_cache_valid, so
            # nginx serves it at most 1 s longer; misses (ENOENT) are never cached, so a new thumbnail
            # is served at once. Each open file is a descriptor per worker: see worker_rlimit_nofile.
            open_file_cache max=10000 inactive=60s;
            open_file_cache_valid 1s;
            open_file_cache_min_uses 1;

            # A URL that names its format (`plain/...@webp`) has its thumbnail at {signature}.{ext}, or
            # nowhere nginx looks. The static handler opens it itself: one lookup (a try_files probe is a
            # second lookup of the same file), no map, nothing varies, and the type is the format's. A
            # URL whose path is not the one its signature signs gets the thumbnail the signature was
            # made for, the only file that name can hold, and never anything else. A miss (404) goes to
            # thumbd, which checks the signature.
        \#(namedFormatLocations)

            # Every other signed URL: the format is negotiated ({signature}.auto.{ext}, by Accept), named by
            # the URI's extension, or the source's; the file's extension gives the Content-Type.
            location ~ "^/(?<thumbd_c>[A-Za-z0-9_-])(?<thumbd_s>[A-Za-z0-9_-]+)/" {
                types {
        \#(typesBlock)
                }
                default_type application/octet-stream;
                \#(tryFiles)
                add_header Cache-Control "\#(ThumbnailLifetime.cacheControl)";
                add_header Vary $thumbd_vary;\#(hitLocationLogs)

        \#(bestLocation(suffix: #"\.best"#).split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "    " + $0 }.joined(separator: "\n"))
            }

            # Anything else is no thumbnail's URL: thumbd says why.
            location / {
                error_page 404 = @thumbd;
                return 404;
            }

            location @thumbd {
                fastcgi_pass \#(fastCGIPass);
                # thumbd verifies the signature on the raw REQUEST_URI and stores at DOCUMENT_URI.
                fastcgi_param REQUEST_METHOD  $request_method;
                fastcgi_param REQUEST_URI     $request_uri;
                fastcgi_param DOCUMENT_URI    $document_uri;
                fastcgi_param QUERY_STRING    $query_string;
                fastcgi_param SERVER_PROTOCOL $server_protocol;
                fastcgi_param REMOTE_ADDR     $remote_addr;
                fastcgi_param REQUEST_ID      $request_id;\#(missLog)
                # A cold thumbnail waits for the origin and the render.
                fastcgi_read_timeout 60s;
                # No fastcgi_keep_conn: nginx acts on X-Accel-Redirect (every stored miss) as soon as the
                # headers arrive and closes the connection without reading the answer's end, so it keeps
                # none (storms of 200 with `keepalive 256` left thumbd no connection open).
            }

            # A miss, once stored: thumbd answers with X-Accel-Redirect to the file here, and nginx
            # serves it as it serves every later hit (ETag, Last-Modified, Range, HEAD, sendfile).
            # Content-Type, Cache-Control and Content-Disposition are thumbd's; the query it adds says
            # whether the answer varies by Accept and whether thumbd made the file for this request
            # (Server-Timing, which a page's scripts can read). Clients cannot ask for it: internal.
            # A file served here once keeps no descriptor open: a purge or eviction right after it
            # frees its space at once. One served again (a storm's waiters, a download) is kept open:
            # it costs no open, fstat and close (nginx's CPU per storm of 200: 14.2 to 13.8 ms), and,
            # as a hit's, is looked up again within open_file_cache_valid (1 s).
            location ^~ /_thumbd/stored/ {
                internal;
                alias \#(cacheRoot)/;
                open_file_cache max=1000 inactive=10s;
                open_file_cache_min_uses 2;
                add_header Vary $arg_vary;
                add_header Server-Timing "thumbd;desc=$arg_cache";\#(missLog)
            }

            # Liveness (imgproxy's path): thumbd answers 200 while its process answers, however busy;
            # with thumbd down, nginx answers 502. Readiness, for a load balancer choosing hosts:
            # 200 while this host can make thumbnails now, 503 saying tersely what stops it (a full
            # queue, a cache it cannot write), from a check thumbd makes every 2 s, not per request.
            location ~ ^/(health|ready)$ {
                fastcgi_pass \#(fastCGIPass);
                fastcgi_param REQUEST_METHOD $request_method;
                fastcgi_param REQUEST_URI    $request_uri;
                fastcgi_param DOCUMENT_URI   $document_uri;
            }

            # thumbd's metrics (Prometheus text), for this machine only, and only for a client that
            # sends thumbd's METRICS_TOKEN as `Authorization: Bearer <token>` (thumbd checks it; without
            # a token set it refuses): a reverse proxy on this machine arrives from 127.0.0.1 too.
            location = /_thumbd/metrics {
                allow 127.0.0.1;
                allow ::1;
                deny all;
                fastcgi_pass \#(fastCGIPass);
                fastcgi_param REQUEST_METHOD     $request_method;
                fastcgi_param REQUEST_URI        $request_uri;
                fastcgi_param DOCUMENT_URI       $document_uri;
                fastcgi_param HTTP_AUTHORIZATION $http_authorization;
            }\#(extrasInclude)
        }

        """#
    }
}
