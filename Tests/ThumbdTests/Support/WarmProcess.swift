import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import ThumbdTestSupport

/// `thumbd warm` as an operator runs it against a test stack's nginx: a process of its own,
/// reading a file or standard input, with its summary on standard output and its lines
/// (standard error is not a terminal here) on standard error.
final class WarmProcess: @unchecked Sendable {
    struct Finished {
        let status: Int32
        /// The summary's lines.
        let summary: [String]
        /// A line per thumbnail, and notes.
        let log: String
    }

    private let process: ChildProcess
    private let output: DetachedResult<[UInt8]>
    private let errors: DetachedResult<Void>
    /// Standard error as far as it has been read.
    private let errorsRead = ReadSoFar()

    /// - Parameter input: written to standard input, then closed; nil gives it no input.
    /// - Parameter environment: THUMBD_* settings; nothing of the test runner's goes through.
    init(stack: TestStack, _ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws {
        let (stdin, stdout, stderr) = try (PipeDescriptors(), PipeDescriptors(), PipeDescriptors())
        process = try ChildProcess(
            TestStack.thumbdBinary, ["warm", "--server", "http://127.0.0.1:\(stack.port)"] + arguments,
            environment: environment.merging(["PATH": "/usr/bin:/bin"]) { $1 },
            stdin: input == nil ? .null : .descriptor(stdin.reading), stdout: .descriptor(stdout.writing),
            stderr: .descriptor(stderr.writing))
        for fd in [stdin.reading, stdout.writing, stderr.writing] { close(fd) }
        // Read while it runs, so a full pipe never stalls it.
        output = Thread.runDetached { PipeDescriptors.readToEnd(stdout.reading, until: .now + .seconds(130)) }
        errors = Thread.runDetached { [errorsRead] in
            defer { close(stderr.reading) }
            var chunk = [UInt8](repeating: 0, count: 4096)
            while case let count = read(stderr.reading, &chunk, chunk.count), count > 0 || (count < 0 && errno == EINTR) {
                if count > 0 { errorsRead.bytes.withLock { $0 += chunk[..<count] } }
            }
        }
        PipeDescriptors.writeAll(Array((input ?? "").utf8), to: stdin.writing)
        close(stdin.writing)
    }

    var isRunning: Bool { process.isRunning }

    /// Its lines so far: what a test waits for before it acts again.
    var logSoFar: String { errorsRead.bytes.withLock { String(decoding: $0, as: UTF8.self) } }

    func send(_ signal: Int32) {
        process.signal(signal)
    }

    func wait() throws -> Finished {
        do {
            try process.wait(timeout: 120, for: "thumbd warm to end")
        } catch {
            process.signalGroup(SIGKILL)
            throw error
        }
        let summary = String(decoding: try output.value(), as: UTF8.self).split(separator: "\n").map(String.init)
        try errors.value()
        return Finished(status: process.terminationStatus!, summary: summary, log: logSoFar)
    }

    /// Runs to the end.
    static func run(stack: TestStack, _ arguments: [String], input: String? = nil,
                    environment: [String: String] = [:]) throws -> Finished {
        try WarmProcess(stack: stack, arguments, input: input, environment: environment).wait()
    }
}

private final class ReadSoFar: Sendable {
    let bytes = Mutex<[UInt8]>([])
}
