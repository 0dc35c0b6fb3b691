/// The front of several thumbd hosts, as `thumbd nginx-config front` writes it: the one place its
/// text is written. Its comments document each directive and go into every config written.
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

    var text: String {
        #"""
        # The front of several thumbd hosts (each an nginx with thumbd's site, `thumbd nginx-config site`,
        # and its own thumbd and cache): every URL of one source photo, whatever its size, options and
        # format, goes to the same host, so that host fetches the photo once (its source memory and
        # coalescing see every size) and holds all its thumbnails. Used by deploy/cluster; README.md,
        # "Running several hosts".
        #
        # Written by `thumbd nginx-config`; to change it, write it again rather than edit it:
        #   \#(NginxValue.commandLine(arguments))
        #
        #   --listen       where the front listens, e.g. 80 or 127.0.0.1:8088
        #   --host         a host's nginx, e.g. 10.77.11.11:80; once per host
        #   --access-log   the front's log (which host answered), or off

        # The source part of a thumbnail URL, the hash key, without the output format: a plain source is
        # the URL after the first `plain/` segment up to its `@format`; a base64 one the segments after
        # the signature and the options (segments with a colon) up to their `.format`. Two spellings of
        # one source (plain and base64) hash apart: a site uses one.
        map $uri $thumbd_source {
            "~^/[^/]+/(?:[^/]+/)*?plain/(.*?)(?:@[a-z]+)?$"     $1;
            "~^/[^/]+/(?:[^/]*:[^/]*/)*([^:]*?)(?:\.[a-z]+)?$" $1;
            default $uri;
        }

        # Which host answered ($upstream_addr lists each host tried, the last one answered).
        log_format thumbd_front '$remote_addr [$time_local] "$request" $status $body_bytes_sent '
                                'upstream $upstream_addr $upstream_status $upstream_response_time';

        upstream thumbd_hosts {
            # A ring of 160 points per host (ketama): adding or removing a host here moves only its share
            # of the keys (3 to 4 hosts: 26 % of 1,000 keys, where a plain hash moved 76 %). A host taken
            # out for failing hands its keys to the hosts after its points, and takes back just those.
            hash $thumbd_source consistent;
            # The hosts' failure counts are shared by the front's workers: one failure takes a host out
            # for every worker.
            zone thumbd_hosts 64k;
            # One failed connection (refused, or no answer within proxy_connect_timeout) takes a host out
            # for fail_timeout; then one request tries it again, and its keys come back if it answers.
        \#(servers)
            # Idle connections kept to the hosts: twice the hits a second of a new connection per request
            # (bench/cluster). A host that vanishes without closing them (power, a cut link) holds the
            # requests sent on them until proxy_read_timeout; one that crashes or reboots closes them.
            keepalive 32;
        }

        server {
            listen \#(listen);
            # The URI goes to the host as the client sent it (the signature covers it); keep "http://"
            # intact in $uri for the hash key.
            merge_slashes off;
            \#(accessLog.directive(format: "thumbd_front") ?? "access_log off;")

            location / {
                proxy_pass http://thumbd_hosts;
                proxy_http_version 1.1;
                proxy_set_header Connection "";
                # Hosts are on the same network: one that does not accept within a second is gone. The
                # request goes on to the next host on the ring, so the client sees a delay, not an error.
                proxy_connect_timeout 1s;
                proxy_next_upstream error timeout;
                # thumbd answers within its TIMEOUT (20 s; then 504, and the job goes on): a host silent
                # for longer is gone, and the request goes on to the next host.
                proxy_read_timeout 25s;
            }
        }

        """#
    }
}
