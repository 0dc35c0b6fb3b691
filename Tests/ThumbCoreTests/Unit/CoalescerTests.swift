import Synchronization
import Testing
@testable import ThumbCore

/// The coalescer's contract: one job per key at a time, every waiter gets that job's outcome,
/// receipts of finished jobs reach the next job for the key.
struct CoalescerTests {
    typealias StringCoalescer = Coalescer<String, Int, String>

    /// Records every start and the receipt it was given.
    final class Starts: Sendable {
        private let starts = Mutex<[String?]>([])
        var count: Int { starts.withLock { $0.count } }
        var receipts: [String?] { starts.withLock { $0 } }
        func record(_ receipt: String?) { starts.withLock { $0.append(receipt) } }
    }

    @Test func fiftyConcurrentWaitersShareOneJob() async {
        // Given a job that does not finish until told
        let coalescer = StringCoalescer()
        let starts = Starts()

        // When 50 requests for one key arrive while it runs
        let results = Task {
            await withTaskGroup(of: Int.self) { group in
                for _ in 0..<50 {
                    group.addTask { await coalescer.outcome(for: "k") { starts.record($0) } }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        while await coalescer.jobsStarted + coalescer.requestsJoined < 50 { await Task.yield() }
        await coalescer.finish("k", with: 42, receipt: "stored")

        // Then one job started, 49 joined it, and all 50 got its outcome
        let outcomes = await results.value
        #expect(starts.count == 1)
        #expect(await coalescer.jobsStarted == 1)
        #expect(await coalescer.requestsJoined == 49)
        #expect(outcomes == Array(repeating: 42, count: 50))
    }

    @Test func theNextJobForAKeyGetsTheLastReceipt() async {
        let coalescer = StringCoalescer()
        let starts = Starts()

        // a first job, finished with a receipt
        async let first = coalescer.outcome(for: "k") { starts.record($0) }
        while await coalescer.jobsStarted < 1 { await Task.yield() }
        await coalescer.finish("k", with: 1, receipt: "path-1")
        #expect(await first == 1)

        // a second job for the same key starts anew, told where the first put its result
        async let second = coalescer.outcome(for: "k") { starts.record($0) }
        while await coalescer.jobsStarted < 2 { await Task.yield() }
        await coalescer.finish("k", with: 2, receipt: nil)
        #expect(await second == 2)
        #expect(starts.receipts == [nil, "path-1"])
    }

    @Test func aFailureReachesEveryWaiterAndLeavesNoReceipt() async {
        let coalescer = Coalescer<String, Result<Int, ThumbError>, String>()
        let starts = Starts()

        async let a = coalescer.outcome(for: "k") { starts.record($0) }
        async let b = coalescer.outcome(for: "k") { starts.record($0) }
        while await coalescer.jobsStarted + coalescer.requestsJoined < 2 { await Task.yield() }
        await coalescer.finish("k", with: .failure(.sourceNotFound), receipt: nil)
        #expect(await a == .failure(.sourceNotFound))
        #expect(await b == .failure(.sourceNotFound))

        async let c = coalescer.outcome(for: "k") { starts.record($0) }
        while await coalescer.jobsStarted < 2 { await Task.yield() }
        await coalescer.finish("k", with: .success(1), receipt: nil)
        #expect(await c == .success(1))
        #expect(starts.receipts == [nil, nil])
    }

    @Test func differentKeysAreDifferentJobs() async {
        let coalescer = StringCoalescer()
        let starts = Starts()
        async let a = coalescer.outcome(for: "a") { starts.record($0) }
        async let b = coalescer.outcome(for: "b") { starts.record($0) }
        while await coalescer.jobsStarted < 2 { await Task.yield() }
        await coalescer.finish("a", with: 1, receipt: nil)
        await coalescer.finish("b", with: 2, receipt: nil)
        #expect(await (a, b) == (1, 2))
        #expect(await coalescer.requestsJoined == 0)
    }

    @Test func receiptsAreBoundedOldestFirst() async {
        let coalescer = StringCoalescer(recentCapacity: 2)
        let starts = Starts()
        /// Runs one whole job for `key` and finishes it with `receipt`.
        func job(_ key: String, receipt: String?) async {
            let before = await coalescer.jobsStarted
            async let done = coalescer.outcome(for: key) { starts.record($0) }
            while await coalescer.jobsStarted == before { await Task.yield() }
            await coalescer.finish(key, with: 0, receipt: receipt)
            _ = await done
        }
        for key in ["a", "b", "c"] {
            await job(key, receipt: "receipt-\(key)")
        }
        // "a" was dropped for "c"; "b" and "c" are kept
        for key in ["a", "b", "c"] {
            await job(key, receipt: nil)
        }
        #expect(starts.receipts.suffix(3) == [nil, "receipt-b", "receipt-c"])
    }
}
