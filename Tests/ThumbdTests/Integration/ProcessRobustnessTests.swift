import Foundation
import Testing
import ThumbdTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// thumbd stays up when descriptors run short, runs the riskier decoders only when told to, and
/// exits non-zero (for systemd to restart it) when it can no longer serve.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct ProcessRobustnessTests {
    @Test func moreWaitingRequestsThanDescriptorsNeverTakeThumbdDown() throws {
        // Given thumbd allowed 400 descriptors, and an origin that holds its answer
        let origin = try TestOrigin()
        origin.serve("/slow.jpg", .image(TestImages.jpeg(width: 64, height: 48)))
        origin.pause("/slow.jpg")
        let stack = try TestStack(environment: ["THUMBD_TIMEOUT": "60"], launcher: ["/usr/bin/prlimit", "--nofile=400"])
        let path = "/insecure/w:32/plain/\(origin.url("/slow.jpg"))@png"

        // When 600 clients ask for the thumbnail straight on the socket and wait for it
        let clients = try (0..<600).map { _ in try FastCGIConnection(stack.sockets[0]) }
        for client in clients { client.send(FastCGIRecords.get(path)) }
        #expect(origin.waitForRequests("/slow.jpg", count: 1, timeout: 10))
        sleep(3)  // real time: libdispatch's pool monitor opens /proc/<tid>/stat every second, at the limit too

        // Then thumbd is still there, holds what it may, and once the origin answers every
        // client gets the thumbnail, fetched once
        #expect(stack.thumbdIsRunning)
        #expect(eventually { stack.thumbdLog.contains("connection limit reached") })
        origin.release("/slow.jpg")
        let answers = clients.map { $0.readUntilClosed(timeout: 60).map { String(decoding: $0, as: UTF8.self) } }
        #expect(answers.filter { $0?.contains("Status: 200") == true }.count == 600)
        #expect(origin.requestCount("/slow.jpg") == 1)
        #expect(stack.thumbdIsRunning)
    }

    @Test(.timeLimit(.minutes(2)))
    func clientsThatLeaveWhileTheirMissWaitsHoldNoDescriptors() throws {
        // Given an origin that holds its answer, thumbd that would wait for it a minute, and one
        // client waiting for a thumbnail, whose job has asked the origin
        let origin = try TestOrigin()
        origin.serve("/slow.jpg", .image(TestImages.jpeg(width: 64, height: 48)))
        origin.pause("/slow.jpg")
        let stack = try TestStack(environment: TestStack.signing.merging(
            ["THUMBD_TIMEOUT": "60", "THUMBD_FIRST_BYTE_TIMEOUT": "60", "THUMBD_DOWNLOAD_TIMEOUT": "60"]) { $1 })
        let pid = try #require(stack.thumbdPID)
        // Connections only: a descriptor opened once and kept (as libdispatch keeps the timer
        // descriptor it opens the first time it is asked for a timer) is no connection held.
        let connections = { Self.openFiles(of: pid).filter { $0.hasPrefix("socket:") }.count }
        let path = stack.signed("/insecure/w:32/plain/\(origin.url("/slow.jpg"))@png")
        var clients = [try HTTPClient.ask(port: stack.port, path: path)]
        #expect(origin.waitForRequests("/slow.jpg", count: 1, timeout: 10))
        let one = connections()  // with the job's connection to the origin

        // When 499 more clients ask nginx for it, and all leave once thumbd holds their connections
        clients += try (1..<500).map { _ in try HTTPClient.ask(port: stack.port, path: path) }
        #expect(eventually(timeout: 30) { connections() >= one + 499 })
        for client in clients { close(client) }

        // Then nginx closes their FastCGI connections, and thumbd its ends, unanswered (500 of
        // each, while other suites' stacks share the two cores: given 30 s)
        #expect(eventually(timeout: 30) { connections() <= one - 1 }, "\(one) connections with one client, \(connections()) now, of \(Self.openFiles(of: pid))")

        // and the job goes on: once the origin answers, the thumbnail is stored and served from its
        // file, by nginx, or by thumbd while nginx's open_file_cache still remembers it missing
        origin.release("/slow.jpg")
        #expect(eventually { stack.cacheFiles().count == 1 })
        // (thumbd may answer it as a miss: a request that comes as the file is stored joins the job)
        #expect(try stack.get(path).status == 200)
        #expect(origin.requestCount("/slow.jpg") == 1)
        #expect(stack.thumbdIsRunning)
    }

    @Test func acceptingOutOfDescriptorsPausesAndResumes() throws {
        // Given thumbd whose descriptor limit is lowered under it to a few more than it holds
        // (and that gives a connection a minute to send its head)
        let stack = try TestStack(environment: ["THUMBD_PARAMS_TIMEOUT": "60"])
        let pid = try #require(stack.thumbdPID)
        let held = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
        #expect(try ProcessRunner.run("/usr/bin/prlimit", ["--pid", "\(pid)", "--nofile=\(held + 8):20000"]).status == 0)

        // When more clients connect at once than it has descriptors left, and only then ask (for
        // a path the worker answers at once, 404): thumbd holds every connection it accepted
        // while it waits for its head, so it runs out however fast it answers. They ask as soon
        // as all are connected: while thumbd is at its limit, libdispatch's pool monitor cannot
        // open /proc/<tid>/stat, and ends the process.
        let clients = try (0..<100).map { _ in try FastCGIConnection(stack.sockets[0]) }
        for client in clients { client.send(FastCGIRecords.get("/not-a-thumbnail")) }

        // Then accepting pauses and resumes until every client is answered
        let answers = clients.map { $0.readUntilClosed(timeout: 30).map { String(decoding: $0, as: UTF8.self) } }
        #expect(answers.filter { $0?.contains("Status: 404") == true }.count == 100)
        #expect(stack.thumbdLog.contains("accept failed; retrying"))
        // said once the backlog is empty: after the last client was handed on, and maybe answered
        #expect(eventually { stack.thumbdLog.contains("accepting again") })
        #expect(stack.thumbdIsRunning)
    }

    @Test func heicAndTiffSourcesAreDecodedOnlyWhenNamed() throws {
        // Given an origin with a real HEIC and a real TIFF photo
        let origin = try TestOrigin()
        origin.serve("/photo.heic", .image(SourceFormatTests.drawn("HEIC"), contentType: "image/heic"))
        origin.serve("/photo.tiff", .image(SourceFormatTests.drawn("TIFF"), contentType: "image/tiff"))

        // Then thumbd as shipped refuses them, with nothing cached
        let shipped = try TestStack()
        for (path, name) in [("/photo.heic", "HEIC"), ("/photo.tiff", "TIFF")] {
            let response = try shipped.get("/insecure/w:40/plain/\(origin.url(path))@png")
            #expect(response.status == 422)
            #expect(response.text == "cannot process source: \(name) sources are not enabled (SOURCE_FORMATS)\n")
        }
        #expect(shipped.cacheFiles().isEmpty)
        // and one told to read them renders them
        let enabled = try TestStack(environment: ["THUMBD_SOURCE_FORMATS": "jpeg,png,gif,webp,avif,bmp,heic,tiff"])
        for path in ["/photo.heic", "/photo.tiff"] {
            let response = try enabled.get("/insecure/w:40/plain/\(origin.url(path))@png")
            #expect(response.status == 200)
            let image = try ImageProbe(response.body)
            #expect((image.format, image.width, image.height) == ("PNG", 40, 30))
        }
    }

    @Test func losingTheListeningSocketEndsThumbdWithAFailure() throws {
        // Given thumbd serving
        let stack = try TestStack()
        #expect(try stack.get("/health").status == 200)
        let pid = try #require(stack.thumbdPID)

        // When its listening socket is shut down under it (through a duplicate taken with pidfd_getfd)
        let shutDown = try ProcessRunner.run("/usr/bin/python3", ["-c", Self.shutDownListeningSocket, "\(pid)"])
        #expect(shutDown.status == 0, "\(shutDown.errors)")

        // Then thumbd says it cannot serve and exits non-zero, which systemd restarts
        #expect(stack.thumbdExitStatus(within: 10) == 1)
        #expect(stack.thumbdLog.contains("cannot serve"))
    }

    @Test func aLogReaderThatGoesAwayNeverTakesThumbdDown() throws {
        // Given thumbd serving, its standard error a pipe to a reader, and the reader killed, as
        // deploy/run's tee is by the terminal's Ctrl-C, or a log collector that dies
        let stack = try TestStack(launcher: ["/bin/bash", "-c", "exec \"$0\" 2> >(exec cat > /dev/null)"])
        #expect(try stack.get("/health").status == 200)
        let pid = try #require(stack.thumbdPID)
        let pipe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/2")
        let reader = try #require(Self.processes(holding: pipe).first { $0 != pid })
        kill(reader, SIGKILL)
        #expect(eventually { Self.processes(holding: pipe) == [pid] })

        // When it logs: requests answered with an error, each a line it cannot write
        for _ in 0..<3 { #expect(try stack.get("/insecure/bogus:1/plain/http://127.0.0.1:1/a.jpg").status == 404) }

        // Then it goes on serving, and stops cleanly when told to
        #expect(try stack.get("/health").status == 200)
        #expect(stack.thumbdIsRunning)
        stack.stopThumbd(0, signal: SIGTERM)
        #expect(stack.thumbdExitStatus(within: 1) == 0)
    }

    @Test func aThumbdStartedWithNoLogReaderServes() throws {
        // Given thumbd started with its standard error a pipe whose reader is already closed, and
        // SIGPIPE at its default (a supervisor whose log collector is down)
        let stack = try TestStack(launcher: ["/usr/bin/python3", "-c", """
            import os, signal, sys
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            reader, writer = os.pipe()
            os.close(reader)
            os.dup2(writer, 2)
            os.execv(sys.argv[1], sys.argv[1:])
            """])

        // Then it logs nowhere, and serves
        #expect(try stack.get("/health").status == 200)
        #expect(try stack.get("/insecure/bogus:1/plain/http://127.0.0.1:1/a.jpg").status == 404)
        #expect(stack.thumbdIsRunning)
        stack.stopThumbd(0, signal: SIGTERM)
        #expect(stack.thumbdExitStatus(within: 1) == 0)
    }

    /// What a process's descriptors point at (`socket:[inode]`, `pipe:[inode]`, a path), by descriptor.
    static func openFiles(of pid: pid_t) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).sorted().compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")
        }
    }

    /// The processes that have `file` (such as `pipe:[inode]`) open.
    static func processes(holding file: String) -> [pid_t] {
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return processes.compactMap(pid_t.init).filter { openFiles(of: $0).contains(file) }
    }

    /// Finds the process's listening unix socket and shuts it down through a duplicate.
    static let shutDownListeningSocket = """
        import ctypes, os, socket, sys
        pid = int(sys.argv[1])
        rows = [line.split() for line in open('/proc/net/unix').read().splitlines()[1:]]
        listening = {row[6] for row in rows if int(row[3], 16) & 0x10000}
        for name in os.listdir(f'/proc/{pid}/fd'):
            target = os.readlink(f'/proc/{pid}/fd/{name}')
            if target.startswith('socket:[') and target[8:-1] in listening:
                break
        else:
            sys.exit('no listening socket')
        libc = ctypes.CDLL(None, use_errno=True)
        duplicate = libc.syscall(438, os.pidfd_open(pid), int(name), 0)  # pidfd_getfd
        if duplicate < 0:
            sys.exit(os.strerror(ctypes.get_errno()))
        socket.socket(fileno=duplicate).shutdown(socket.SHUT_RDWR)
        """
}
