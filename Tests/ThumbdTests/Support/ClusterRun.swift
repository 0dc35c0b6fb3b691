import ThumbdTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// deploy/cluster itself (with the thumbd these tests built): hosts, origin and front as real
/// network hosts in network namespaces, with the front on a free port of 127.0.0.1.
///
/// One at a time on a machine, and never beside a browser test (NetworkChangeLock): every run has
/// the same names and addresses, so `up` clears whatever a crashed run left (deploy/cluster notes
/// where each run was), and the hash keys (the source URLs hold the origin's address) spread over
/// the hosts alike every run. Its files are in a directory of its own, from mkdtemp: deploy/cluster
/// runs as root and refuses one another user could have made.
final class ClusterRun {
    static let name = "thumbdt"
    /// The /24 the hosts are on, its first three numbers: host N is .(10+N).
    static let net = "10.78.11"
    let directory: String
    let hosts: Int
    let port: Int
    /// deploy/cluster's THUMBD_RUN_DIR.
    let runDirectory: String
    /// The origin's base URL, as deploy/cluster printed it: a photo is at this + its file name.
    private(set) var origin = ""
    private let environment: [String: String]
    private let lock: NetworkChangeLock
    /// Lines the front's access log will hold once every request sent through it is logged.
    private var frontRequests = 0

    /// Namespaces can be made here: root, iproute2, and a kernel and container that allow it.
    static let canMakeNamespaces: Bool = {
        guard getuid() == 0, let ip = ipCommand else { return false }
        let probe = "thumbd-probe-\(getpid())"
        guard (try? ProcessRunner.run(ip, ["netns", "add", probe]))?.status == 0 else { return false }
        _ = try? ProcessRunner.run(ip, ["netns", "delete", probe])
        return true
    }()

    static let ipCommand = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// - Parameter photos: what the origin serves, by file name.
    /// - Parameter settings: THUMBD_* for every host.
    init(hosts: Int, photos: [String: [UInt8]], settings: [String: String]) throws {
        self.hosts = hosts
        port = try FreePort.next()
        lock = try NetworkChangeLock(exclusive: true)
        var template = Array("/tmp/thumbd-cluster-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw StackError("mkdtemp failed") }
        directory = String(cString: made)
        chmod(directory, 0o755)  // nginx's workers run as nobody
        runDirectory = directory + "/run"
        let photoDirectory = directory + "/photos"
        environment = settings.merging([
            "THUMBD_BINARY": TestStack.thumbdBinary, "THUMBD_CLUSTER_HOSTS": "\(hosts)", "THUMBD_CLUSTER_NAME": Self.name,
            "THUMBD_CLUSTER_NET": Self.net, "THUMBD_PHOTOS": photoDirectory,
            "THUMBD_HTTP_PORT": "\(port)", "THUMBD_RUN_DIR": runDirectory, "THUMBD_METRICS_TOKEN": TestStack.metricsToken,
        ]) { $1 }
        do {
            try FileManager.default.createDirectory(atPath: photoDirectory, withIntermediateDirectories: false)
            for (file, bytes) in photos {
                guard FileManager.default.createFile(atPath: photoDirectory + "/" + file, contents: Data(bytes)) else {
                    throw StackError("cannot write \(file)")
                }
            }
            let lines = try cluster(["up"]).split(separator: "\n")
            guard lines.count >= 2, lines[lines.count - 2] == "front http://127.0.0.1:\(port)",
                  lines.last?.hasPrefix("origin http://") == true else {
                throw StackError("deploy/cluster up printed:\n\(lines.joined(separator: "\n"))")
            }
            origin = String(lines.last!.dropFirst("origin ".count))
            frontRequests = try frontLog().count  // up's own /health checks
        } catch {
            try? down()
            throw error
        }
    }

    /// Stops everything and removes what deploy/cluster made and the photos, then lets the next run start.
    func down() throws {
        defer { lock.release() }
        try cluster(["down"])
        try FileManager.default.removeItem(atPath: directory)
    }

    /// What this run may have left: namespaces and links by their names, processes naming its
    /// directory (every nginx's master), the directory itself.
    func leftovers() throws -> [String] {
        let ip = Self.ipCommand!
        let namespaces = try ProcessRunner.run(ip, ["netns", "list"]).output.split(separator: "\n")
        let links = try ProcessRunner.run(ip, ["-o", "link", "show"]).output.split(separator: "\n")
        let processes = try FileManager.default.contentsOfDirectory(atPath: "/proc").filter { $0.allSatisfy(\.isNumber) }.filter { pid in
            let commandLine = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
            return String(decoding: commandLine, as: UTF8.self).contains(directory)
        }
        return (namespaces + links).filter { $0.contains("\(Self.name)-") }.map(String.init)
            + processes.map { "process \($0)" }
            + (FileManager.default.fileExists(atPath: directory) ? [directory] : [])
    }

    /// Host `number` (1...) goes away: its processes killed, its link down.
    func stopHost(_ number: Int) throws { _ = try cluster(["stop", "\(number)"]) }

    /// Host `number` comes back, with its cache.
    func startHost(_ number: Int) throws { _ = try cluster(["start", "\(number)"]) }

    func get(_ path: String) throws -> HTTPResponse {
        frontRequests += 1
        return try HTTPClient.get(port: port, path: path)
    }

    /// Every path once, `concurrency` clients at a time taking them in order; answers in the paths' order.
    func getAll(_ paths: [String], concurrency: Int = 6) throws -> [Result<HTTPResponse, Error>] {
        frontRequests += paths.count
        let workers = (0..<concurrency).map { worker in
            Thread.runDetached { [port] in
                stride(from: worker, to: paths.count, by: concurrency).map { index in
                    (index, Result { try HTTPClient.get(port: port, path: paths[index]) })
                }
            }
        }
        var answers = [Result<HTTPResponse, Error>?](repeating: nil, count: paths.count)
        for (index, answer) in try workers.flatMap({ try $0.value() }) { answers[index] = answer }
        return answers.map { $0! }
    }

    /// Host `number`'s thumbd counters, read from inside its namespace on 127.0.0.1, as its nginx allows.
    func metrics(host number: Int) throws -> [String: Int] {
        let run = try ProcessRunner.run(Self.ipCommand!, [
            "netns", "exec", "\(Self.name)-h\(number)", "curl", "-sf", "-H", "Authorization: Bearer \(TestStack.metricsToken)",
            "http://127.0.0.1/_thumbd/metrics",
        ])
        guard run.status == 0 else { throw StackError("metrics of host \(number): \(run.errors)") }
        return TestStack.parseMetrics(run.output)
    }

    /// Requests the origin's nginx logged, by path.
    func originRequests() throws -> [String: Int] {
        let log = try String(contentsOfFile: runDirectory + "/origin/nginx-access.log", encoding: .utf8)
        var counts: [String: Int] = [:]
        for line in log.split(separator: "\n") {
            guard let request = line.split(separator: "\"").dropFirst().first else { continue }
            counts[String(request.split(separator: " ")[1]), default: 0] += 1
        }
        return counts
    }

    /// The host (1...) that answered each request the front logged, by request path: the last
    /// answer's, a path asked for again replaces it.
    func answeringHosts() throws -> [String: Int] {
        // nginx logs a request once it has finished it, which can be after the client has its
        // answer: wait (a little) for the lines of the last requests.
        var log = try frontLog()
        _ = try eventually(timeout: 5) {
            log = try frontLog()
            return log.count >= frontRequests
        }
        var hosts: [String: Int] = [:]
        for line in log {
            // "upstream 10.78.11.12:80, 10.78.11.11:80 504, 200 ..." when the first host failed: the
            // last address, the first without a comma, answered
            guard let request = line.split(separator: "\"").dropFirst().first,
                  let upstream = line.split(separator: " ").drop(while: { $0 != "upstream" }).dropFirst().first(where: { !$0.hasSuffix(",") }),
                  let octet = upstream.split(separator: ":").first?.split(separator: ".").last, let last = Int(octet)
            else { throw StackError("unexpected line in the front's log: \(line)") }
            hosts[String(request.split(separator: " ")[1])] = last - 10
        }
        return hosts
    }

    private func frontLog() throws -> [Substring] {
        try String(contentsOfFile: runDirectory + "/front/front-access.log", encoding: .utf8).split(separator: "\n")
    }

    @discardableResult
    private func cluster(_ arguments: [String]) throws -> String {
        // As from a user's shell: not the restrictive ImageMagick policy these tests draw under.
        let run = try ProcessRunner.run("/usr/bin/env", ["-u", "MAGICK_CONFIGURE_PATH"]
            + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            + [TestStack.repositoryRoot + "/deploy/cluster"] + arguments)
        guard run.status == 0 else {
            throw StackError("deploy/cluster \(arguments.joined(separator: " ")) exited \(run.status):\n\(run.errors)")
        }
        return run.output
    }
}
