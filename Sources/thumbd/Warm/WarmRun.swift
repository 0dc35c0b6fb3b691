import Foundation
import ThumbFetch
import ThumbRuntime

/// Asks nginx for every path, `concurrency` at a time, each asker on a thread of its own with
/// its own kept-alive connection, in the order given. `stop()` starts no more requests;
/// `abandon()` also gives up on those in flight.
public final class WarmRun: @unchecked Sendable {
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

    private let paths: [String]
    private let configuration: Configuration
    private let condition = NSCondition()
    private var next = 0
    private var askers = 0
    private var asking = 0
    private var stopped = false
    private var abandoning = false
    private var startFailure: FetchFailure?
    private var tally: WarmTally

    public init(paths: [String], configuration: Configuration) {
        self.paths = paths
        self.configuration = configuration
        tally = WarmTally(total: paths.count)
    }

    /// Asks for every path (or until stopped) and returns the tally. `onResult` is called for each
    /// path as its answer arrives, one call at a time, with the tally that includes it.
    /// Throws when libcurl cannot even make a handle.
    public func run(onResult: @escaping @Sendable (String, WarmResult, WarmTally) -> Void) throws(FetchFailure) -> WarmTally {
        let askers = max(1, min(configuration.concurrency, paths.count))
        condition.withLock { self.askers = askers }
        for index in 0..<askers {
            NamedThread.start("thumbd-warm-\(index)") { [self] in ask(onResult: onResult) }
        }
        let (tally, startFailure) = condition.withLock {
            while self.askers > 0 { condition.wait() }
            return (self.tally, self.startFailure)
        }
        if let startFailure { throw startFailure }
        return tally
    }

    /// Starts no more requests; those in flight finish.
    public func stop() {
        condition.withLock { stopped = true }
    }

    /// Starts no more requests and gives up on those in flight (within about a second: libcurl
    /// asks between its waits).
    public func abandon() {
        condition.withLock {
            stopped = true
            abandoning = true
        }
    }

    /// Requests under way.
    public var inFlight: Int {
        condition.withLock { asking }
    }

    private func ask(onResult: @Sendable (String, WarmResult, WarmTally) -> Void) {
        defer {
            condition.withLock {
                askers -= 1
                condition.broadcast()
            }
        }
        let client: WarmClient
        do throws(FetchFailure) {
            client = try WarmClient(server: configuration.server, timeoutSeconds: configuration.timeoutSeconds,
                                    accept: configuration.accept, shouldAbandon: { [self] in condition.withLock { abandoning } })
        } catch {
            condition.withLock {
                startFailure = error
                stopped = true
            }
            return
        }
        while let path = nextPath() {
            let result = client.ask(path)
            condition.withLock {
                asking -= 1
                tally.add(result)
                onResult(path, result, tally)
            }
        }
    }

    private func nextPath() -> String? {
        condition.withLock {
            guard !stopped, next < paths.count else { return nil }
            defer { next += 1 }
            asking += 1
            return paths[next]
        }
    }
}
