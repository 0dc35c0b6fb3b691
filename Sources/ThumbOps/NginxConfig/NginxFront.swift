/// The front of several thumbd hosts, as `thumbd nginx-config front` writes it: its template
/// (thumbd-front.conf.template, compiled into the binary) with the parts computed here filled in.
/// The template's comments document each directive and go into every config written.
struct NginxFront {
    var listen = NginxAddress(host: nil, port: 80)
    /// Each host's nginx (its thumbd site), a `server` line each.
    var hosts: [NginxAddress]
    /// Which host answered each request, in the `thumbd_front` format.
    var accessLog = NginxLog.file("/var/log/nginx/thumbd-front.log")

    /// The arguments that write this front again, an option and its value a group.
    var arguments: [[String]] {
        [["front"], ["--listen", "\(listen)"]] + hosts.map { ["--host", "\($0)"] } + [["--access-log", "\(accessLog)"]]
    }

    private var servers: String {
        hosts.map { "    server \($0) max_fails=1 fail_timeout=5s;" }.joined(separator: "\n")
    }

    /// The front: the template (thumbd-front.conf.template, embedded at build time) with its
    /// computed parts filled in.
    var text: String {
        NginxTemplate.filled(PackageResources.thumbd_front_conf_template, with: [
            "command_line": NginxValue.commandLine(arguments),
            "servers": servers,
            "listen": "\(listen)",
            "access_log": accessLog.directive(format: "thumbd_front") ?? "access_log off;",
        ])
    }
}
