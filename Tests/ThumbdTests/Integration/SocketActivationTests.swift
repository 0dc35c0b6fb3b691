import Foundation
import Testing

/// Started by a socket unit, thumbd serves on the socket systemd passes and leaves it in place
/// when it stops, so a request made while it restarts waits in the socket's backlog and is
/// answered by the next thumbd. Support/socket-holder.py holds the socket as systemd would.
@Suite(.blocking, .timeLimit(.minutes(5)))
struct SocketActivationTests {
    /// The holder, driven line by line.
    final class Holder {
        let process = Process()
        private let input = Pipe()
        private let output = Pipe()
        private var buffered = ""

        init(socket: String, environment: [String: String], log: String) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [TestStack.repositoryRoot + "/Tests/ThumbdTests/Support/socket-holder.py", socket,
                                 TestStack.thumbdBinary, "serve"]
            process.environment = environment
            process.standardInput = input
            process.standardOutput = output
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: log)
            try process.run()
        }

        func say(_ line: String) {
            input.fileHandleForWriting.write(Data((line + "\n").utf8))
        }

        /// The holder's next line.
        func nextLine() -> String {
            while !buffered.contains("\n") {
                let data = output.fileHandleForReading.availableData
                if data.isEmpty { return "" }
                buffered += String(decoding: data, as: UTF8.self)
            }
            let line = String(buffered.prefix { $0 != "\n" })
            buffered.removeFirst(line.count + 1)
            return line
        }

        func end() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
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
            connection.send(FastCGIConnection.get("/health"))
            return Self.healthAnswer(connection).contains("Status: 200")
        })

        // When it stops, a client connects and asks while none runs, and the next one starts
        holder.say("stop")
        #expect(holder.nextLine() == "stopped 0")
        #expect(FileManager.default.fileExists(atPath: socket), "thumbd removed the socket systemd holds")
        let waiting = try FastCGIConnection(socket)
        waiting.send(FastCGIConnection.get("/health"))
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
