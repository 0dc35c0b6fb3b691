import Foundation
import Testing
import ThumbdTestSupport
#if canImport(Glibc)
import Glibc
#endif

private let setpriv = "/usr/bin/setpriv"

/// deploy/run and deploy/cluster run as root. A directory another user made for them (the run
/// directory, or the photos they serve) is refused before anything in it is read, run, killed or
/// written; and a pid file, even in a directory of root's, is acted on only when /proc shows the
/// process is that run's own nginx or thumbd.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized,
       .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: setpriv),
                "needs root, and setpriv (util-linux) to act as another user"))
final class RunDirectoryTests {
    /// root's, 0700: what an attack would reach, a secret file and where a command it got root to
    /// run leaves its mark.
    let victims: String
    /// A process of root's that neither script started, named by the planted pid files.
    let bystander: ChildProcess

    var secret: String { victims + "/secret" }
    var mark: String { victims + "/owned" }

    init() throws {
        var template = Array("/tmp/thumbd-victims-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw StackError("mkdtemp failed") }
        victims = String(cString: made)
        try "secret\n".write(toFile: victims + "/secret", atomically: false, encoding: .utf8)
        chmod(victims + "/secret", 0o600)
        // A TERM sent to it would end it (ChildProcess blocks no signal): that it lives on says none was.
        bystander = try ChildProcess("/bin/sleep", ["600"])
    }

    deinit {
        bystander.stop()
        try? FileManager.default.removeItem(atPath: victims)
    }

    @Test(.timeLimit(.minutes(2)))
    func deployRunRefusesARunDirectoryOrPhotosAnotherUserMade() throws {
        // Given a run directory another user prepared, and a run directory of root's
        let hostile = try hostileDirectory()
        defer { try? FileManager.default.removeItem(atPath: hostile) }
        let prepared = try listing(hostile)
        let own = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: own) }
        let port = try FreePort.next()

        // When deploy/run is to run in the one, or to serve the other user's directory as its photos
        let refusals = [
            try deploy("run", environment: ["THUMBD_RUN_DIR": hostile, "THUMBD_HTTP_PORT": "\(port)"]),
            try deploy("run", environment: ["THUMBD_RUN_DIR": own, "THUMBD_PHOTOS": hostile, "THUMBD_HTTP_PORT": "\(port)"]),
        ]

        // Then it refuses, says why, and has touched nothing, there or elsewhere
        for refusal in refusals {
            #expect(refusal.status != 0)
            #expect(refusal.errors.contains("deploy: refusing \(hostile): \(hostile) belongs to uid 65534"), "\(refusal.errors)")
        }
        #expect(try listing(hostile) == prepared)
        try expectNothingReached()
        #expect(!FileManager.default.fileExists(atPath: own + "/origin"))
        #expect(throws: (any Error).self) { try HTTPClient.get(port: port, path: "/", timeout: 2) }
    }

    @Test(.timeLimit(.minutes(2)))
    func deployClusterRefusesARunDirectoryAnotherUserMadeWhateverTheCommand() throws {
        // Given a run directory another user prepared, with a settings file that runs a command
        let hostile = try hostileDirectory()
        defer { try? FileManager.default.removeItem(atPath: hostile) }
        let prepared = try listing(hostile)

        for command in [["up"], ["down"], ["stop", "1"], ["start", "1"]] {
            // When deploy/cluster is told it is a cluster's (of a name no cluster has)
            let refusal = try deploy("cluster", command, environment: [
                "THUMBD_RUN_DIR": hostile, "THUMBD_CLUSTER_NAME": "thumbdh", "THUMBD_CLUSTER_NET": "10.78.51",
            ])

            // Then it refuses and says why
            #expect(refusal.status != 0, "\(command)")
            #expect(refusal.errors.contains("deploy: refusing \(hostile): \(hostile) belongs to uid 65534"), "\(command): \(refusal.errors)")
        }
        // and has sourced, killed, removed and written nothing
        #expect(try listing(hostile) == prepared)
        try expectNothingReached()
    }

    @Test(.timeLimit(.minutes(3)))
    func aPidFileNamingAnotherProcessDoesNotGetItKilled() throws {
        let photo = try #require(try FileManager.default.contentsOfDirectory(atPath: TestPhotos.directory).sorted().first {
            $0.hasSuffix(".jpg")
        }, "no photos in \(TestPhotos.directory); deploy/test fetches them")

        // Given run directories of root's whose pid files name a process that is not the run's
        // When deploy/run starts in one, stopping what an earlier run left there
        let demo = try DemoRun(photos: [photo: TestPhotos.directory + "/" + photo]) { run in
            for pidfile in ["nginx.pid", "thumbd.pid"] {
                try "\(self.bystander.pid)\n".write(toFile: run + "/" + pidfile, atomically: false, encoding: .utf8)
            }
        }
        defer { demo.stop() }
        // and deploy/cluster down clears the other, stopping its front
        let cluster = try Self.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: cluster + "/front", withIntermediateDirectories: false)
        try "\(bystander.pid)\n".write(toFile: cluster + "/front/nginx.pid", atomically: false, encoding: .utf8)
        let down = try deploy("cluster", ["down"], environment: ["THUMBD_RUN_DIR": cluster, "THUMBD_CLUSTER_NAME": "thumbdh"])

        // Then that process lives on, the demo serves, and the cluster's directory is gone
        #expect(bystander.isRunning)
        #expect(try HTTPClient.get(port: demo.port, path: "/").status == 200)
        #expect(down.status == 0, "\(down.errors)")
        #expect(!FileManager.default.fileExists(atPath: cluster))
    }

    /// A directory the user nobody made in /tmp, set for an attack on whatever root runs in it: a
    /// settings file that leaves a mark, pid files naming the bystander, a config that loads a
    /// module, and links to the secret where nginx's temp files and the demo page go.
    private func hostileDirectory() throws -> String {
        let script = """
            dir=$(mktemp -d /tmp/thumbd-hostile-XXXXXX) && cd "$dir" && mkdir front nginx-tmp demo origin &&
            printf 'touch %s\\n' "$1" > settings &&
            for pidfile in nginx.pid thumbd.pid front/nginx.pid; do echo "$2" > "$pidfile"; done &&
            echo 'load_module /tmp/evil.so;' > nginx.conf &&
            ln -s "$3" nginx-tmp/client-body && ln -s "$3" demo/index.html && ln -s "$3" origin/photo.jpg && echo "$dir"
            """
        let made = try ProcessRunner.run(setpriv, [
            "--reuid=nobody", "--regid=nogroup", "--clear-groups", "/bin/sh", "-c", script, "sh", mark, "\(bystander.pid)", secret,
        ])
        guard made.status == 0 else { throw StackError("nobody could not prepare a directory: \(made.errors)") }
        return made.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every file under `directory`: its type, owner, size and a link's target.
    private func listing(_ directory: String) throws -> String {
        let find = try ProcessRunner.run("/usr/bin/find", [directory, "-printf", "%P %y %U %s %l\n"])
        guard find.status == 0 else { throw StackError("find: \(find.errors)") }
        return find.output.split(separator: "\n").sorted().joined(separator: "\n")
    }

    private func expectNothingReached() throws {
        #expect(bystander.isRunning)
        #expect(!FileManager.default.fileExists(atPath: mark))
        let info = try FileManager.default.attributesOfItem(atPath: secret)
        #expect(info[.ownerAccountID] as? Int == 0 && info[.posixPermissions] as? Int == 0o600)
        #expect(try String(contentsOfFile: secret, encoding: .utf8) == "secret\n")
    }

    /// deploy/SCRIPT as root runs it from a shell, with the thumbd these tests built.
    private func deploy(_ script: String, _ arguments: [String] = [], environment: [String: String]) throws -> ProcessRunner.Finished {
        try ProcessRunner.run("/usr/bin/env", ["-u", "MAGICK_CONFIGURE_PATH", "THUMBD_BINARY=\(TestStack.thumbdBinary)"]
            + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            + [TestStack.repositoryRoot + "/deploy/" + script] + arguments)
    }

    private static func temporaryDirectory() throws -> String {
        var template = Array("/tmp/thumbd-run-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw StackError("mkdtemp failed") }
        return String(cString: made)
    }
}
