import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

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

    private let process = Process()
    private let output: DetachedResult<Data>
    private let errors: DetachedResult<Void>
    /// Standard error as far as it has been read.
    private let errorsRead = ReadSoFar()

    /// - Parameter input: written to standard input, then closed; nil gives it no input.
    /// - Parameter environment: THUMBD_* settings; nothing of the test runner's goes through.
    init(stack: TestStack, _ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: TestStack.thumbdBinary)
        process.arguments = ["warm", "--server", "http://127.0.0.1:\(stack.port)"] + arguments
        process.environment = environment.merging(["PATH": "/usr/bin:/bin"]) { $1 }
        let stdout = Pipe(), stderr = Pipe(), stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try process.run()
        // Read while it runs, so a full pipe never stalls it.
        output = Thread.runDetached { stdout.fileHandleForReading.readDataToEndOfFile() }
        errors = Thread.runDetached { [errorsRead] in
            while case let chunk = stderr.fileHandleForReading.availableData, !chunk.isEmpty {
                errorsRead.bytes.withLock { $0.append(chunk) }
            }
        }
        if let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
    }

    var isRunning: Bool { process.isRunning }

    /// Its lines so far: what a test waits for before it acts again.
    var logSoFar: String { errorsRead.bytes.withLock { String(decoding: $0, as: UTF8.self) } }

    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    func wait() -> Finished {
        process.waitUntilExit()
        let summary = String(decoding: output.value(), as: UTF8.self).split(separator: "\n").map(String.init)
        errors.value()
        return Finished(status: process.terminationStatus, summary: summary, log: logSoFar)
    }

    /// Runs to the end.
    static func run(stack: TestStack, _ arguments: [String], input: String? = nil,
                    environment: [String: String] = [:]) throws -> Finished {
        try WarmProcess(stack: stack, arguments, input: input, environment: environment).wait()
    }
}

private final class ReadSoFar: Sendable {
    let bytes = Mutex(Data())
}
