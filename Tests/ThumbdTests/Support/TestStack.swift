import Foundation
import Synchronization
import Testing
import ThumbdTestSupport
#if canImport(Glibc)
import Glibc
#endif
@testable import ThumbRequest

/// Real nginx and a real thumbd process in a temp directory, configured with nginx/nginx.conf and
/// the site `thumbd nginx-config site` writes, with nginx on a free port of 127.0.0.1 and thumbd on a unix socket.
final class TestStack: @unchecked Sendable {
    let directory: String
    let cacheRoot: String
    let port: Int
    /// One thumbd per socket; with several, nginx spreads misses over them (an upstream).
    let sockets: [String]
    private var thumbds: [ChildProcess?]
    private let thumbdEnvironment: [String: String]
    /// A command thumbd is started through (`prlimit --nofile=N`), if any.
    private let launcher: [String]
    private let nginx: ChildProcess
    /// nginx's listening socket, bound here and handed to nginx (its NGINX variable, as for a binary
    /// upgrade): a port chosen, freed and bound again later could be taken by anyone meanwhile.
    private let listener: Int32
    private let isShutDown = Atomic(false)

    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .path

    /// nginx's master runs as root here and its config names no user, so its workers run as
    /// nobody, in nobody's group: the group thumbd's socket (0660) must be in.
    static var nginxWorkerGroup: gid_t { getpwnam("nobody").map { $0.pointee.pw_gid } ?? 65534 }

    /// thumbd is built beside the test bundle (the test target depends on it).
    static var thumbdBinary: String {
        if let path = ProcessInfo.processInfo.environment["THUMBD_BINARY"] { return path }
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return bundle.appendingPathComponent("thumbd").path
    }

    /// A key and salt to start thumbd with: URLs are then signed, and their thumbnails are served
    /// by nginx alone (insecure mode stores every thumbnail privately: every request reaches thumbd).
    static let signing = ["THUMBD_KEY": "7465737473746b6579", "THUMBD_SALT": "7465737473616c74"]

    /// The METRICS_TOKEN every stack's thumbd asks for at /_thumbd/metrics (`scrape`).
    static let metricsToken = "test-metrics-token-0123456789"

    /// - Parameter environment: THUMBD_* settings over the defaults (loopback sources allowed,
    ///   insecure mode unless the environment gives a key: `insecure` URLs).
    /// - Parameter instances: thumbd processes sharing the cache, each on its own socket.
    /// - Parameter launcher: a command to start thumbd through, its arguments before thumbd's path.
    /// - Parameter cacheRoot: where the cache is, its index beside it; by default in the stack's directory.
    /// - Parameter siteArguments: more arguments for `thumbd nginx-config site` (`--enforce webp`).
    /// - Parameter unsetting: defaults above to leave out of the environment, so that a settings
    ///   file can set them (the environment wins over it).
    init(environment: [String: String] = [:], instances: Int = 1, launcher: [String] = [], cacheRoot: String? = nil,
         siteArguments: [String] = [], unsetting: Set<String> = []) throws {
        self.launcher = launcher
        var template = Array("/tmp/thumbd-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw StackError("mkdtemp failed") }
        directory = String(cString: made)
        self.cacheRoot = cacheRoot ?? directory + "/cache"
        (listener, port) = try Self.listeningSocket()
        // nginx's workers run as nobody: they read; nginx's master makes its temp paths in
        // nginx-tmp, 0700 and theirs (a directory they could write to would let them plant a link
        // the master follows when it hands those over)
        for path in [directory, self.cacheRoot, directory + "/nginx-tmp", directory + "/site.d"] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            chmod(path, 0o755)
        }
        let run = directory
        let sockets = (0..<instances).map { "\(run)/thumbd-\($0).sock" }
        self.sockets = sockets
        thumbds = Array(repeating: nil, count: instances)
        try Self.render("nginx/nginx.conf", to: directory + "/nginx.conf", ["@RUN_DIR@": directory])
        try Self.writeSite(to: directory + "/thumbd-site.conf", [
            "--listen", "127.0.0.1:\(port)", "--cache-root", self.cacheRoot, "--hits-log", self.cacheRoot + ".hits.log",
            "--access-log", directory + "/nginx-access.log", "--extras", directory + "/site.d/*.conf",
        ] + sockets.flatMap { ["--socket", "unix:\($0)"] } + siteArguments)
        if instances > 1 {
            // Each instance's metrics at /_test/metrics/N, to see what each process sees.
            for (instance, socket) in sockets.enumerated() {
                try """
                location = /_test/metrics/\(instance) {
                    fastcgi_pass unix:\(socket);
                    fastcgi_param REQUEST_METHOD GET;
                    fastcgi_param REQUEST_URI /_thumbd/metrics;
                    fastcgi_param DOCUMENT_URI /_thumbd/metrics;
                    fastcgi_param HTTP_AUTHORIZATION $http_authorization;
                }
                """.write(toFile: "\(run)/site.d/metrics-\(instance).conf", atomically: true, encoding: .utf8)
            }
        }
        var thumbdEnvironment = [
            "THUMBD_CACHE_ROOT": self.cacheRoot,
            "THUMBD_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true",
            "THUMBD_WORKERS": "8",
            "THUMBD_LOG_LEVEL": "info",
            "THUMBD_MAGICK_POLICY_DIR": Self.repositoryRoot + "/deploy",
            "THUMBD_SOCKET_GROUP": "\(Self.nginxWorkerGroup)",
            "THUMBD_METRICS_TOKEN": Self.metricsToken,
        ]
        // Insecure unless the test gives a key, itself or in a settings file.
        if environment["THUMBD_KEY"] == nil && environment["THUMBD_CONFIG"] == nil { thumbdEnvironment["THUMBD_INSECURE"] = "true" }
        // A small index, unless the test sizes the cache itself: its bound alone would do.
        if environment["THUMBD_CACHE_MAX_BYTES"] == nil { thumbdEnvironment["THUMBD_CACHE_MAX_ENTRIES"] = "20000" }
        thumbdEnvironment.merge(environment) { $1 }
        for name in unsetting { thumbdEnvironment[name] = nil }
        self.thumbdEnvironment = thumbdEnvironment
        nginx = try ChildProcess("/usr/sbin/nginx", ["-p", directory, "-c", directory + "/nginx.conf", "-g", "daemon off;"],
                                 environment: ["NGINX": "\(listener);"], inherited: [listener])
        for instance in 0..<instances { try startThumbd(instance) }
        try waitUntil("nginx listens on \(port)") { Self.canConnect(port: self.port) }
    }

    deinit { shutdown() }

    /// A path written `/insecure/...`, signed with the stack's key when it has one (`signing`).
    func get(_ path: String, headers: [String: String] = [:], method: String = "GET") throws -> HTTPResponse {
        try HTTPClient.get(port: port, path: signed(path), headers: headers, method: method)
    }

    /// `/insecure/{rest}` as a page would link it: `/{signature}/{rest}` with the stack's key, or
    /// as it is in insecure mode. Any other path is sent as it is.
    func signed(_ path: String) -> String {
        guard path.hasPrefix("/insecure/"), let verifier else { return path }
        return verifier.signedPath(String(path.dropFirst("/insecure".count)))
    }

    /// Where the thumbnail of `path` (signed as `get` signs it) is stored in `format`, relative to
    /// the cache root: `served/{c}/{signature}.{ext}`.
    func servedFile(_ path: String, format: String) -> String {
        let signature = signed(path).dropFirst().prefix { $0 != "/" }
        return "served/\(signature.prefix(1))/\(signature).\(format)"
    }

    private var verifier: SignatureVerifier? {
        guard let key = thumbdEnvironment["THUMBD_KEY"].map([UInt8].init(hex:)),
              let salt = thumbdEnvironment["THUMBD_SALT"].map([UInt8].init(hex:)) else { return nil }
        return SignatureVerifier(pairs: [.init(key: key, salt: salt)])
    }

    /// A path sent byte for byte, UTF-8 or not.
    func get(rawPath: [UInt8]) throws -> HTTPResponse {
        try HTTPClient.get(port: port, rawPath: rawPath)
    }

    /// thumbd's counters, read through nginx as an operator would (or one instance's, by number).
    func metrics(instance: Int? = nil) throws -> [String: Int] {
        let response = try scrape(instance.map { "/_test/metrics/\($0)" } ?? "/_thumbd/metrics")
        guard response.status == 200 else { throw StackError("metrics answered \(response.status)") }
        return Self.parseMetrics(response.text)
    }

    /// The metrics' answer as Prometheus gets it through nginx: with the stack's token.
    func scrape(_ path: String = "/_thumbd/metrics") throws -> HTTPResponse {
        try get(path, headers: ["Authorization": "Bearer \(Self.metricsToken)"])
    }

    /// Each unlabelled sample of Prometheus' text format, by name.
    static func parseMetrics(_ text: String) -> [String: Int] {
        var values: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Double(parts[1]) { values[String(parts[0])] = Int(value) }
        }
        return values
    }

    /// Stops every thumbd (SIGTERM) and waits: from then on only nginx answers.
    func stopThumbd() {
        for instance in thumbds.indices { stopThumbd(instance, signal: SIGTERM) }
    }

    /// Sends `signal` to one thumbd and waits for it to end.
    func stopThumbd(_ instance: Int, signal: Int32) {
        guard let thumbd = thumbds[instance], thumbd.isRunning else { return }
        thumbd.signal(signal)
        do {
            try thumbd.wait(timeout: 60, for: "thumbd \(instance) to end after signal \(signal)")
        } catch {
            thumbd.signalGroup(SIGKILL)
            Issue.record("\(error)")
        }
    }

    /// Sends `signal` to every thumbd, and returns at once.
    func signalThumbd(_ signal: Int32) {
        for case let thumbd? in thumbds { thumbd.signal(signal) }
    }

    var thumbdIsRunning: Bool { thumbds.contains { $0?.isRunning ?? false } }

    /// The first thumbd's process id (the launcher's, which execs thumbd).
    var thumbdPID: pid_t? { thumbds[0]?.pid }

    /// The first thumbd's exit status once it has ended by itself within `timeout` seconds; nil if
    /// it still runs.
    func thumbdExitStatus(within timeout: Double) -> Int32? {
        guard let thumbd = thumbds[0], eventually(timeout: timeout, { !thumbd.isRunning }) else { return nil }
        return thumbd.terminationStatus
    }

    /// A running thumbd's resident memory in KiB (VmRSS), nil when it is not running.
    func thumbdResidentKiB(_ instance: Int = 0) -> Int? {
        guard let thumbd = thumbds[instance], thumbd.isRunning,
              let status = try? String(contentsOfFile: "/proc/\(thumbd.pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
    }

    /// Every thumbd's log, the first's first; a restarted one appends to its own.
    var thumbdLog: String {
        thumbds.indices.map { (try? String(contentsOfFile: logPath($0), encoding: .utf8)) ?? "" }.joined()
    }

    /// Runs `thumbd cache ARGUMENTS` on this stack's cache, as an operator would.
    func cacheCommand(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try Self.thumbdCommand(["cache"] + arguments, environment: thumbdEnvironment)
    }

    /// Runs the thumbd these tests built to its end with THUMBD_* `environment` (nothing of the test
    /// runner's); its standard output, then its standard error.
    static func thumbdCommand(_ arguments: [String], environment: [String: String]) throws -> (status: Int32, output: String) {
        let run = try ProcessRunner.run(thumbdBinary, arguments, environment: environment.merging(["PATH": "/usr/bin:/bin"]) { $1 })
        return (run.status, run.output + run.errors)
    }

    /// Lines of thumbd's log that record a job (one per miss).
    var jobLogLines: [String] { thumbdLog.split(separator: "\n").map(String.init).filter { $0.hasSuffix(" miss") } }

    /// Every regular file under the cache root, relative to it.
    func cacheFiles() -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: cacheRoot)
        var files: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: cacheRoot + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(path)
            }
        }
        return files.sorted()
    }

    func shutdown() {
        stopThumbd()
        nginx.stop()
        guard !isShutDown.exchange(true, ordering: .relaxed) else { return }
        close(listener)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts (or starts again) one thumbd and waits until it listens.
    func startThumbd(_ instance: Int = 0) throws {
        let socket = sockets[instance]
        unlink(socket)  // a killed thumbd leaves its socket file behind
        let process = try ChildProcess(
            launcher.first ?? Self.thumbdBinary, launcher.isEmpty ? [] : Array(launcher.dropFirst()) + [Self.thumbdBinary],
            environment: thumbdEnvironment.merging(["PATH": "/usr/bin:/bin", "THUMBD_LISTEN": "unix:\(socket)"]) { $1 },
            stderr: .file(logPath(instance)))
        thumbds[instance] = process
        try waitUntil("thumbd listens on \(socket)") { FileManager.default.fileExists(atPath: socket) || !process.isRunning }
        guard process.isRunning else { throw StackError("thumbd exited at start:\n\(thumbdLog)") }
    }

    private func logPath(_ instance: Int) -> String {
        instance == 0 ? directory + "/thumbd.log" : directory + "/thumbd-\(instance).log"
    }

    /// The site as every deployment writes it: `thumbd nginx-config site` with `arguments`.
    static func writeSite(to path: String, _ arguments: [String]) throws {
        let written = try ProcessRunner.run(thumbdBinary, ["nginx-config", "site", "--output", path] + arguments)
        guard written.status == 0 else { throw StackError("thumbd nginx-config site: \(written.errors)") }
    }

    private static func render(_ template: String, to path: String, _ values: [String: String]) throws {
        var text = try String(contentsOfFile: repositoryRoot + "/" + template, encoding: .utf8)
        for (placeholder, value) in values {
            text = text.replacingOccurrences(of: placeholder, with: value)
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// A socket listening on a port of 127.0.0.1 the kernel picks, closed on exec but for the
    /// child it is handed to.
    private static func listeningSocket() throws -> (fd: Int32, port: Int) {
        // Non-blocking, as nginx makes its own: it does not change an inherited socket, and a worker
        // woken with another for one connection would block in accept, holding every connection it has.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw StackError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 511) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw StackError("cannot listen on 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    private static func canConnect(port: Int) -> Bool {
        (try? HTTPClient.get(port: port, path: "/", timeout: 2)) != nil
    }
}
