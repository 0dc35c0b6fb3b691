import Foundation
import ThumbFetch
import ThumbRuntime

/// Asks nginx for every path, `concurrency` at a time, each asker on a thread of its own with
/// its own kept-alive connection, in the order given. `stop()` starts no more requests;
/// `abandon()` also gives up on those in flight.
public final class WarmRun: Sendable {
    public struct Configuration: Sendable {
        /// Where nginx listens, e.g. `http://127.0.0.1:8080`.
        public var server: String
        public var concurrency = 4
        /// Seconds one request may take, from connecting to the last byte.
        public var timeoutSeconds = 60.0
        /// The Accept header to send, for URLs whose format is negotiated.
        public var accept: String?

        public init(server: String) {
            self.server = server
        }
    }

    private struct Progress: Sendable {
        var next = 0
        var askers = 0
        var asking = 0
        var stopped = false
        var abandoning = false
        var startFailure: FetchFailure?
        var tally: WarmTally
    }

    private let paths: [String]
    private let configuration: Configuration
    private let progress: Monitor<Progress>

    public init(paths: [String], configuration: Configuration) {
        self.paths = paths
        self.configuration = configuration
        progress = Monitor(Progress(tally: WarmTally(total: paths.count)))
    }

    /// Asks for every path (or until stopped) and returns the tally. `onResult` is called for each
    /// path as its answer arrives, one call at a time, with the tally that includes it.
    /// Throws when libcurl cannot even make a handle.
    public func run(onResult: @escaping @Sendable (String, WarmResult, WarmTally) -> Void) throws(FetchFailure) -> WarmTally {
        let askers = max(1, min(configuration.concurrency, paths.count))
        progress.withLock { $0.askers = askers }
        for number in 0..<askers {
            OwnedThread.start(.warm, number: number) { [self] in ask(onResult: onResult) }
        }
        let (tally, startFailure) = progress.wait { progress in
            progress.askers > 0 ? .sleep() : .done((progress.tally, progress.startFailure))
        }
        if let startFailure { throw startFailure }
        return tally
    }

    /// Starts no more requests; those in flight finish.
    public func stop() {
        progress.withLock { $0.stopped = true }
    }

    /// Starts no more requests and gives up on those in flight (within about a second: libcurl
    /// asks between its waits).
    public func abandon() {
        progress.withLock {
            $0.stopped = true
            $0.abandoning = true
        }
    }

    /// Requests under way.
    public var inFlight: Int {
        progress.withLock { $0.asking }
    }

    private func ask(onResult: @Sendable (String, WarmResult, WarmTally) -> Void) {
        defer {
            progress.withLock(waking: .everyone) { $0.askers -= 1 }
        }
        let client: WarmClient
        do throws(FetchFailure) {
            client = try WarmClient(server: configuration.server, timeoutSeconds: configuration.timeoutSeconds,
                                    accept: configuration.accept, shouldAbandon: { [progress] in progress.withLock { $0.abandoning } })
        } catch {
            progress.withLock {
                $0.startFailure = error
                $0.stopped = true
            }
            return
        }
        while let path = nextPath() {
            let result = client.ask(path)
            progress.withLock {
                $0.asking -= 1
                $0.tally.add(result)
                onResult(path, result, $0.tally)
            }
        }
    }

    private func nextPath() -> String? {
        progress.withLock { progress in
            guard !progress.stopped, progress.next < paths.count else { return nil }
            defer { progress.next += 1 }
            progress.asking += 1
            return paths[progress.next]
        }
    }
}
