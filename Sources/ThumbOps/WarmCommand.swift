import ArgumentParser
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import ThumbFetch
import ThumbRequest
import ThumbRuntime

/// `thumbd warm`: asks nginx for thumbnails before clients do (thumbor's seeds), so that the
/// first client already gets a static file.
public struct WarmCommand<Settings: OpsSettings>: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "warm",
            abstract: "Ask nginx for thumbnails before clients do, so that they are cached.",
            discussion: """
            Reads FILE, or standard input, a line each: a thumbnail's URL or path as `thumbd sign` takes \
            it (/rs:fill:300:200/plain/https://origin.example/cat.jpg@webp), which warm signs with the \
            (first) key, or marks insecure without one; with --signed, as a client asks for it, \
            signature included. With --preset, each line is a source URL, asked for once per preset. \
            Blank lines and lines starting with # are skipped; a path listed twice is asked for once. \
            Other settings (THUMBD_ONLY_PRESETS) are read from the environment and the settings file \
            as thumbd reads them.

            A thumbnail was made when thumbd answered it (Server-Timing: thumbd;desc=miss), and was \
            already cached when nginx served it. Ctrl-C starts no more requests and waits for those in \
            flight; a second Ctrl-C abandons them. Exit status: 0, or 1 when any thumbnail failed, or \
            130 when interrupted (143 for TERM).

            Examples:
              thumbd warm --key 736563726574 --salt 68656C6C6F paths.txt
              thumbd warm --preset thumb --preset large --format webp < sources.txt
            """ + "\n\n" + Settings.flagsHelp(for: "warm")
        )
    }

    @Argument(help: "The file to read; none or - reads standard input.")
    var file: String?

    @Option(help: "Where nginx listens: thumbnails are asked for there.")
    var server = "http://127.0.0.1:8080"

    @Option(help: "Requests at once.")
    var concurrency = 4

    @Option(help: "Seconds one request may take.")
    var timeout: Double = 60

    @Option(help: "Lines are source URLs, asked for with this preset (pr:NAME); repeat for several.")
    var preset: [String] = []

    @Option(help: "With --preset: the format to ask for (\(ImageFormat.extensionNames)); none keeps the source's.")
    var format: String?

    @Flag(help: "Lines carry their signature already (e.g. paths from an access log): asked for as they are.")
    var signed = false

    @Option(help: "The Accept header to send, for URLs whose format the client's Accept decides.")
    var accept: String?

    public init() {}

    public func validate() throws {
        guard server.hasPrefix("http://") || server.hasPrefix("https://") else {
            throw ValidationError("--server is an http(s) URL, e.g. http://127.0.0.1:8080")
        }
        guard concurrency >= 1 else { throw ValidationError("--concurrency is at least 1") }
        guard timeout > 0 else { throw ValidationError("--timeout is above 0") }
        if let format, ImageFormat(extension: format) == nil {
            throw ValidationError("--format is one of \(ImageFormat.extensionNames)")
        }
        if format != nil, preset.isEmpty { throw ValidationError("--format goes with --preset") }
        if signed, !preset.isEmpty { throw ValidationError("--signed lines are thumbnails, --preset lines sources: give one") }
        if file == nil || file == "-", isatty(STDIN_FILENO) == 1 {
            throw ValidationError("give a FILE, or pipe the lines in")
        }
    }

    public func run() throws {
        Signals.startWithDefaults(taking: [SIGINT, SIGTERM])
        let configuration = try settings()
        let targets: WarmTargets
        do {
            targets = try WarmTargets(lines: try readLines(), reading: reading(configuration), signing: configuration.signing)
        } catch let invalid as WarmTargets.Invalid {
            let shown = invalid.messages.prefix(20) + (invalid.messages.count > 20 ? ["... and \(invalid.messages.count - 20) more"] : [])
            StandardError.write("thumbd warm: nothing asked for:\n\(shown.joined(separator: "\n"))\n")
            throw ExitCode(2)
        }

        OriginFetcher.initializeGlobally()
        var options = WarmRun.Configuration(server: server)
        options.concurrency = concurrency
        options.timeoutSeconds = timeout
        options.accept = accept
        let run = WarmRun(paths: targets.paths, configuration: options)
        let progress = WarmProgress(style: WarmProgress.standardErrorStyle, total: targets.paths.count)
        progress.start()
        let firstSignal = FirstSignal()
        var handlers: [Int32: @Sendable () -> Void] = [:]
        for number in [SIGINT, SIGTERM] {
            handlers[number] = {
                // Noted first: once stopped, the run may end and the process exit at any moment.
                if firstSignal.record(number) {
                    progress.note("stopping: no new requests; \(run.inFlight) in flight finish (interrupt again to abandon them)")
                    run.stop()
                } else {
                    progress.note("abandoning the requests in flight")
                    run.abandon()
                }
            }
        }
        Signals.take(handlers)
        let started = Date()
        let tally = try run.run { path, result, tally in progress.record(path, result, tally) }
        progress.finish()
        print(tally.summary(duplicates: targets.duplicates, seconds: Date().timeIntervalSince(started),
                            interrupted: firstSignal.number != nil))
        if let number = firstSignal.number { throw ExitCode(128 + number) }
        if tally.failed > 0 { throw ExitCode(1) }
    }

    /// The settings' flags warm takes (the signing ones and the settings file), every other setting
    /// from the environment and the settings file.
    private func settings() throws -> Settings {
        try Settings.commandLine(flags: Settings.givenFlags, signingURLs: false)
    }

    private func reading(_ configuration: Settings) -> WarmTargets.Reading {
        guard !preset.isEmpty else { return .thumbnails(signed: signed) }
        return .sources(presets: preset, format: format.flatMap(ImageFormat.init(extension:)),
                        onlyPresets: configuration.options.onlyPresets)
    }

    private func readLines() throws -> String {
        guard let file, file != "-" else {
            return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        }
        return try String(contentsOfFile: file, encoding: .utf8)
    }
}

/// The signal that stopped the run first: a second one abandons what is in flight, and the exit
/// status names the first.
private final class FirstSignal: Sendable {
    private let first = Mutex<Int32?>(nil)

    /// True when `signal` is the first.
    func record(_ signal: Int32) -> Bool {
        first.withLock { first in
            guard first == nil else { return false }
            first = signal
            return true
        }
    }

    var number: Int32? { first.withLock { $0 } }
}
