import Foundation
import Synchronization
import Testing
@testable import ThumbCore

/// The coalescer's contract: one job per key at a time, every waiter gets that job's outcome,
/// receipts of finished jobs reach the next job for the key. One at a time, on threads of their
/// own: aWaiterThatBlocksHoldsUpNoOtherJob holds a thread of libdispatch's global queues, which on
/// Linux are Swift's pool too, until it has seen another job answered. On the pool, it waited for
/// the pool's one other thread, and every test in the run waited with it (every unit suite ended
/// the moment it did, 44 to 71 s into a run).
@Suite(.blocking, .timeLimit(.minutes(2)), .serialized)
struct CoalescerTests {
    typealias StringCoalescer = Coalescer<String, Int, String>

    /// Jobs that record the receipt they start with and end only when the test says how.
    final class Jobs<Outcome: Sendable>: Sendable {
        typealias Ending = (outcome: Outcome, receipt: String?)
        /// A job's ending, told before the job asked for it, or the job waiting for it.
        private enum Slot {
            case told(Ending)
            case waiting(CheckedContinuation<Ending, Never>)
        }

        private let starts = Mutex<[String?]>([])
        private let slots = Mutex<[String: Slot]>([:])
        var count: Int { starts.withLock { $0.count } }
        var receipts: [String?] { starts.withLock { $0 } }

        func job(_ key: String) -> @Sendable (String?) async -> Ending {
            { previous in
                self.starts.withLock { $0.append(previous) }
                return await withCheckedContinuation { continuation in
                    let told: Ending? = self.slots.withLock { slots in
                        guard case .told(let ending) = slots[key] else {
                            slots[key] = .waiting(continuation)
                            return nil
                        }
                        slots[key] = nil
                        return ending
                    }
                    if let told { continuation.resume(returning: told) }
                }
            }
        }

        /// Lets the running job for `key` end with this outcome and receipt (or the next one, if
        /// it has not asked yet).
        func finish(_ key: String, with outcome: Outcome, receipt: String?) {
            let waiting: CheckedContinuation<Ending, Never>? = slots.withLock { slots in
                guard case .waiting(let continuation) = slots[key] else {
                    slots[key] = .told((outcome, receipt))
                    return nil
                }
                slots[key] = nil
                return continuation
            }
            waiting?.resume(returning: (outcome, receipt))
        }
    }

    @Test func fiftyConcurrentWaitersShareOneJob() async {
        // Given a job that does not finish until told
        let coalescer = StringCoalescer()
        let starts = Jobs<Int>()

        // When 50 requests for one key arrive while it runs
        let results = Task {
            await withTaskGroup(of: Int.self) { group in
                for _ in 0..<50 {
                    group.addTask { await coalescer.outcome(for: "k", job: starts.job("k")) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(await eventually(timeout: 60) { coalescer.jobsStarted + coalescer.requestsJoined >= 50 })
        starts.finish("k", with: 42, receipt: "stored")

        // Then one job started, 49 joined it, and all 50 got its outcome
        let outcomes = await results.value
        #expect(starts.count == 1)
        #expect(coalescer.jobsStarted == 1)
        #expect(coalescer.requestsJoined == 49)
        #expect(outcomes == Array(repeating: 42, count: 50))
    }

    @Test func joinsFromManyThreadsAtOnceStartOneJob() async {
        // Given a job that does not finish until told
        let coalescer = StringCoalescer()
        let starts = Jobs<Int>()
        let answered = Atomic(0)

        // When 8 threads join the same key 50 times each, all at once (workers join on their own
        // threads, under the coalescer's lock)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<50 {
                coalescer.join("k", waiter: { outcome in answered.add(outcome, ordering: .relaxed) }, job: starts.job("k"))
            }
        }
        starts.finish("k", with: 1, receipt: nil)
        #expect(await eventually(timeout: 60) { answered.load(ordering: .relaxed) >= 400 })

        // Then exactly one job ran, the 399 others joined it, and each of the 400 got its outcome once
        #expect(starts.count == 1)
        #expect(coalescer.jobsStarted == 1)
        #expect(coalescer.requestsJoined == 399)
        // A second answer would come after the 400th: 50 ms for one to show (on a slow machine
        // it may miss one, never fail wrongly)
        try? await Task.sleep(for: .milliseconds(50))
        #expect(answered.load(ordering: .relaxed) == 400)
    }

    @Test func waitersThatJoinGetTheOutcomeTogetherOnOneThread() async {
        // Given a job that does not finish until told, and 50 waiters that are callbacks
        let coalescer = StringCoalescer()
        let starts = Jobs<Int>()
        let answers = Mutex<[(outcome: Int, thread: pthread_t)]>([])
        for _ in 0..<50 {
            coalescer.join("k", waiter: { outcome in answers.withLock { $0.append((outcome, pthread_self())) } },
                                 job: starts.job("k"))
        }

        // When the job ends
        starts.finish("k", with: 7, receipt: nil)
        #expect(await eventually(timeout: 60) { answers.withLock { $0.count } >= 50 })

        // Then one job ran, and every waiter got its outcome, all on one thread, one after another
        let received = answers.withLock { $0 }
        #expect(starts.count == 1)
        #expect(received.allSatisfy { $0.outcome == 7 })
        #expect(received.allSatisfy { pthread_equal($0.thread, received[0].thread) != 0 })
    }

    @Test func aWaiterThatBlocksHoldsUpNoOtherJob() async throws {
        // Given a job whose one waiter blocks (as a slow write would) once it has the outcome,
        // until released, at the latest after 30 s
        let coalescer = StringCoalescer()
        let starts = Jobs<Int>()
        let blocked = Atomic(false)
        let release = DispatchSemaphore(value: 0)
        let released = Atomic(false)
        coalescer.join("slow", waiter: { _ in
            blocked.store(true, ordering: .relaxed)
            release.wait()
        }, job: starts.job("slow"))
        starts.finish("slow", with: 1, receipt: nil)
        #expect(await eventually(timeout: 60) { blocked.load(ordering: .relaxed) })
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) {
            released.store(true, ordering: .relaxed)
            release.signal()
        }

        // When another key's job runs meanwhile
        async let other = coalescer.outcome(for: "other", job: starts.job("other"))
        #expect(await eventually(timeout: 60) { coalescer.jobsStarted >= 2 })
        starts.finish("other", with: 2, receipt: nil)

        // Then it ends and is answered while the first waiter is still blocked
        #expect(await other == 2)
        let waitedForTheBlockedWaiter = released.load(ordering: .relaxed)
        #expect(!waitedForTheBlockedWaiter)
        if !waitedForTheBlockedWaiter { release.signal() }
    }

    @Test func theNextJobForAKeyGetsTheLastReceipt() async {
        let coalescer = StringCoalescer()
        let starts = Jobs<Int>()

        // a first job, finished with a receipt
        async let first = coalescer.outcome(for: "k", job: starts.job("k"))
        #expect(await eventually(timeout: 60) { coalescer.jobsStarted >= 1 })
        starts.finish("k", with: 1, receipt: "path-1")
        #expect(await first == 1)

        // a second job for the same key starts anew, told where the first put its result
        async let second = coalescer.outcome(for: "k", job: starts.job("k"))
        #expect(await eventually(timeout: 60) { coalescer.jobsStarted >= 2 })
        starts.finish("k", with: 2, receipt: nil)
        #expect(await second == 2)
        #expect(starts.receipts == [nil, "path-1"])
    }

    @Test func aFailureReachesEveryWaiterAndLeavesNoReceipt() async {
        let coalescer = Coalescer<String, Result<Int, ThumbError>, String>()
        let starts = Jobs<Result<Int, ThumbError>>()

        async let a = coalescer.outcome(for: "k", job: starts.job("k"))
        async let b = coalescer.outcome(for: "k", job: starts.job("k"))
        #expect(await eventually(timeout: 60) { coalescer.jobsStarted + coalescer.requestsJoined >= 2 })
        starts.finish("k", with: .failure(.sourceNotFound), receipt: nil)
        #expect(await a == .failure(.sourceNotFound))
        #expect(await b == .failure(.sourceNotFound))

        async let c = coalescer.outcome(for: "k", job: starts.job("k"))
        #expect(await eventually(timeout: 60) { coalescer.jobsStarted >= 2 })
        starts.finish("k", with: .success(1), receipt: nil)
        #expect(await c == .success(1))
        #expect(starts.receipts == [nil, nil])
    }

    @Test func differentKeysAreDifferentJobs() async {
        let coalescer = StringCoalescer()
        let starts = Jobs<Int>()
        async let a = coalescer.outcome(for: "a", job: starts.job("a"))
        async let b = coalescer.outcome(for: "b", job: starts.job("b"))
        #expect(await eventually(timeout: 60) { coalescer.jobsStarted >= 2 })
        starts.finish("a", with: 1, receipt: nil)
        starts.finish("b", with: 2, receipt: nil)
        #expect(await (a, b) == (1, 2))
        #expect(coalescer.requestsJoined == 0)
    }

    @Test func receiptsAreBoundedOldestFirst() async {
        let coalescer = StringCoalescer(recentCapacity: 2)
        let starts = Jobs<Int>()
        /// Runs one whole job for `key` and finishes it with `receipt`.
        func job(_ key: String, receipt: String?) async {
            let before = coalescer.jobsStarted
            async let done = coalescer.outcome(for: key, job: starts.job(key))
            #expect(await eventually(timeout: 60) { coalescer.jobsStarted != before })
            starts.finish(key, with: 0, receipt: receipt)
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
