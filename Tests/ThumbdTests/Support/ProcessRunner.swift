import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ThumbdTestSupport

/// Runs a program to its end, with bytes on its standard input, and gives back what it wrote.
enum ProcessRunner {
    struct Finished {
        let status: Int32
        let outputBytes: [UInt8]
        let errors: String
        var output: String { String(decoding: outputBytes, as: UTF8.self) }
    }

    /// - Parameter environment: the whole environment; nil passes the test runner's on.
    /// - Parameter timeout: seconds it may take; past them its group is killed and the run throws.
    static func run(_ executable: String, _ arguments: [String], input: [UInt8] = [],
                    environment: [String: String]? = nil, timeout: Double = 300) throws -> Finished {
        let (stdin, stdout, stderr) = try (PipeDescriptors(), PipeDescriptors(), PipeDescriptors())
        let child: ChildProcess
        do {
            child = try ChildProcess(executable, arguments, environment: environment, stdin: .descriptor(stdin.reading),
                                     stdout: .descriptor(stdout.writing), stderr: .descriptor(stderr.writing))
        } catch {
            for fd in [stdin, stdout, stderr].flatMap({ [$0.reading, $0.writing] }) { close(fd) }
            throw error
        }
        for fd in [stdin.reading, stdout.writing, stderr.writing] { close(fd) }
        // Read both outputs while writing, so that neither pipe fills and stalls the program.
        // A little past the run's own limit: what it wrote is in the pipes by then.
        let readUntil = ContinuousClock.now + .seconds(timeout + 10)
        let errors = Thread.runDetached { PipeDescriptors.readToEnd(stderr.reading, until: readUntil) }
        let output = Thread.runDetached { PipeDescriptors.readToEnd(stdout.reading, until: readUntil) }
        PipeDescriptors.writeAll(input, to: stdin.writing)
        close(stdin.writing)
        do {
            try child.wait(timeout: timeout, for: "\(executable) \(arguments.prefix(3).joined(separator: " ")) to end")
        } catch {
            child.signalGroup(SIGKILL)  // its readers then see the pipes' ends
            _ = (try output.value(), try errors.value())
            throw error
        }
        let (outputBytes, errorBytes) = (try output.value(), try errors.value())
        return Finished(status: child.terminationStatus!, outputBytes: outputBytes,
                        errors: String(decoding: errorBytes, as: UTF8.self))
    }
}
