import Foundation
import Testing
import ThumbdTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Started by a socket unit, thumbd serves on the socket systemd passes and leaves it in place
/// when it stops, so a request made while it restarts waits in the socket's backlog and is
/// answered by the next thumbd. Support/socket-holder.py holds the socket as systemd would.
@Suite(.blocking, .timeLimit(.minutes(5)))
struct SocketActivationTests {
    /// The holder, driven line by line.
    final class Holder {
        let process: ChildProcess
        private let input: Int32
        private let output: Int32
        private var buffered: [UInt8] = []

        init(socket: String, environment: [String: String], log: String) throws {
            let (input, output) = try (PipeDescriptors(), PipeDescriptors())
            process = try ChildProcess("/usr/bin/python3", [
                TestStack.repositoryRoot + "/Tests/ThumbdTests/Support/socket-holder.py", socket, TestStack.thumbdBinary, "serve",
            ], environment: environment, stdin: .descriptor(input.reading), stdout: .descriptor(output.writing), stderr: .file(log))
            close(input.reading)
            close(output.writing)
            (self.input, self.output) = (input.writing, output.reading)
        }

        func say(_ line: String) {
            PipeDescriptors.writeAll(Array((line + "\n").utf8), to: input)
        }

        /// The holder's next line; empty when it has ended, or said nothing for a minute.
        func nextLine() -> String {
            while !buffered.contains(UInt8(ascii: "\n")) {
                var ready = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
                var chunk = [UInt8](repeating: 0, count: 4096)
                guard poll(&ready, 1, 60_000) == 1 else {
                    Issue.record("timed out waiting for a line from socket-holder.py")
                    return ""
                }
                let count = read(output, &chunk, chunk.count)
                if count <= 0 { return "" }
                buffered += chunk[..<count]
            }
            let line = buffered.prefix { $0 != UInt8(ascii: "\n") }
            buffered.removeFirst(line.count + 1)
            return String(decoding: line, as: UTF8.self)
        }

        func end() {
            close(input)
            if (try? process.wait(timeout: 60, for: "socket-holder.py to end once its input closed")) == nil {
                Issue.record("socket-holder.py did not end once its input closed")
                process.signalGroup(SIGKILL)
            }
            close(output)
        }
    }

    static func healthAnswer(_ connection: FastCGIConnection) -> String {
        String(decoding: connection.readUntilClosed(timeout: 30) ?? [], as: UTF8.self)
    }

    @Test func aRestartKeepsTheSocketAndARequestMadeMeanwhileIsAnswered() throws {
        // Given a socket held as a socket unit holds it, and thumbd started on it
        let directory = try FileManager.default.url(for: .itemReplacementDirectory, in: .userDomainMask,
                                                    appropriateFor: URL(fileURLWithPath: "/tmp"), create: true).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/thumbd.sock"
        let holder = try Holder(socket: socket, environment: [
            "PATH": "/usr/bin:/bin", "THUMBD_INSECURE": "true", "THUMBD_CACHE_ROOT": directory + "/cache",
            "THUMBD_MAGICK_POLICY_DIR": TestStack.repositoryRoot + "/deploy",
            // Where it would listen by itself: the passed socket wins.
            "THUMBD_LISTEN": "unix:\(directory)/own.sock",
        ], log: directory + "/thumbd.log")
        defer { holder.end() }
        #expect(holder.nextLine() == "listening")
        holder.say("start")
        #expect(holder.nextLine().hasPrefix("started"))
        #expect(eventually(timeout: 30) {
            guard let connection = try? FastCGIConnection(socket) else { return false }
            connection.send(FastCGIRecords.get("/health"))
            return Self.healthAnswer(connection).contains("Status: 200")
        })

        // When it stops, a client connects and asks while none runs, and the next one starts
        holder.say("stop")
        #expect(holder.nextLine() == "stopped 0")
        #expect(FileManager.default.fileExists(atPath: socket), "thumbd removed the socket systemd holds")
        let waiting = try FastCGIConnection(socket)
        waiting.send(FastCGIRecords.get("/health"))
        holder.say("start")
        #expect(holder.nextLine().hasPrefix("started"))

        // Then the request made during the restart is answered by the new thumbd
        #expect(Self.healthAnswer(waiting).contains("Status: 200"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/own.sock"))
        let log = (try? String(contentsOfFile: directory + "/thumbd.log", encoding: .utf8)) ?? ""
        #expect(log.components(separatedBy: "the socket systemd passed").count - 1 == 2, "\(log)")
        holder.say("stop")
        #expect(holder.nextLine() == "stopped 0")
    }
}
