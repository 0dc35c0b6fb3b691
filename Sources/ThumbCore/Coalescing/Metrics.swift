import Synchronization

/// Counters of what thumbd did, for the operator's metrics endpoint and for tests that must
/// tell a fetch from a memory hit.
public final class Metrics: Sendable {
    public enum Counter: String, CaseIterable, Sendable {
        case requests
        case storedFileAnswers = "stored_file_answers"
        case originFetches = "origin_fetches"
        case sourceMemoryHits = "source_memory_hits"
        case failureMemoryHits = "failure_memory_hits"
        case renders
        case overloaded
        case deadlinesExceeded = "deadlines_exceeded"
    }

    private let counters = Mutex<[Counter: Int]>([:])

    public init() {}

    public func increment(_ counter: Counter) {
        counters.withLock { $0[counter, default: 0] += 1 }
    }

    public func value(_ counter: Counter) -> Int {
        counters.withLock { $0[counter, default: 0] }
    }
}
