import Foundation

/// Runs a program to its end, with bytes on its standard input, and gives back what it wrote.
enum ProcessRunner {
    struct Finished {
        let status: Int32
        let outputBytes: [UInt8]
        let errors: String
        var output: String { String(decoding: outputBytes, as: UTF8.self) }
    }

    /// - Parameter environment: the whole environment; nil passes the test runner's on.
    static func run(_ executable: String, _ arguments: [String], input: [UInt8] = [],
                    environment: [String: String]? = nil) throws -> Finished {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let (stdin, stdout, stderr) = (Pipe(), Pipe(), Pipe())
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // Read both outputs while writing, so that neither pipe fills and stalls the program.
        let errors = Thread.runDetached { stderr.fileHandleForReading.readDataToEndOfFile() }
        let output = Thread.runDetached { stdout.fileHandleForReading.readDataToEndOfFile() }
        stdin.fileHandleForWriting.write(Data(input))
        try stdin.fileHandleForWriting.close()
        let (outputData, errorData) = (output.value(), errors.value())
        process.waitUntilExit()
        return Finished(status: process.terminationStatus, outputBytes: [UInt8](outputData),
                        errors: String(decoding: errorData, as: UTF8.self))
    }
}
