import Foundation
import Synchronization
import Testing
import ThumbdTestSupport
import ThumbFetch
@testable import ThumbJobs
@testable import ThumbRuntime

/// The coalescer's contract: one job per key at a time, and every waiter gets that job's outcome.
/// One at a time, on threads of their
/// own: aWaiterThatBlocksHoldsUpNoOtherJob holds a thread of libdispatch's global queues, which on
/// Linux are Swift's pool too, until it has seen another job answered. On the pool, it waited for
/// the pool's one other thread, and every test in the run waited with it (every unit suite ended
/// the moment it did, 44 to 71 s into a run).
@Suite(.blocking, .timeLimit(.minutes(2)), .serialized)
struct CoalescerTests {
    typealias StringCoalescer = Coalescer<String, Int>

    /// Jobs that count their starts and end only when the test says how.
    final class Jobs<Outcome: Sendable>: Sendable {
        typealias Ending = Outcome
        /// A job's ending, told before the job asked for it, or the job waiting for it.
        private enum Slot {
            case told(Ending)
            case waiting(CheckedContinuation<Ending, Never>)
        }

        private let starts = Atomic(0)
        private let slots = Mutex<[String: Slot]>([:])
        var count: Int { starts.load(ordering: .relaxed) }

        func job(_ key: String) -> @Sendable () async -> Ending {
            {
                self.starts.add(1, ordering: .relaxed)
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

        /// Lets the running job for `key` end with this outcome (or the next one, if it has not
        /// asked yet).
        func finish(_ key: String, with outcome: Outcome) {
            let waiting: CheckedContinuation<Ending, Never>? = slots.withLock { slots in
                guard case .waiting(let continuation) = slots[key] else {
                    slots[key] = .told(outcome)
                    return nil
                }
                slots[key] = nil
                return continuation
            }
            waiting?.resume(returning: outcome)
        }
    }

    @Test func fiftyConcurrentWaitersShareOneJob() async {
        // Given a job that does not finish until told
        let coalescer = StringCoalescer()
        let starts = Jobs<Int>()

        // When 50 requests for one key arrive while it runs (child tasks, on threads of their own
        // as the suite's are: on Swift's pool they would wait for whatever holds its two threads)
        async let results = withTaskGroup(of: Int.self) { group in
            for _ in 0..<50 {
                group.addTask { await coalescer.outcome(for: "k", job: starts.job("k")) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(await eventually(timeout: 60) { coalescer.jobsStarted + coalescer.requestsJoined >= 50 })
        starts.finish("k", with: 42)

        // Then one job started, 49 joined it, and all 50 got its outcome
        let outcomes = await results
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
        starts.finish("k", with: 1)
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
        starts.finish("k", with: 7)
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
        starts.finish("slow", with: 1)
        #expect(await eventually(timeout: 60) { blocked.load(ordering: .relaxed) })
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) {
            released.store(true, ordering: .relaxed)
            release.signal()
        }

        // When another key's job runs meanwhile
        async let other = coalescer.outcome(for: "other", job: starts.job("other"))
        #expect(await eventually(timeout: 60) { coalescer.jobsStarted >= 2 })
        starts.finish("other", with: 2)

        // Then it ends and is answered while the first waiter is still blocked
        #expect(await other == 2)
        let waitedForTheBlockedWaiter = released.load(ordering: .relaxed)
        #expect(!waitedForTheBlockedWaiter)
        if !waitedForTheBlockedWaiter { release.signal() }
    }

    @Test func aFailureReachesEveryWaiterAndTheNextRequestStartsAnew() async {
        let coalescer = Coalescer<String, Result<Int, JobFailure>>()
        let starts = Jobs<Result<Int, JobFailure>>()

        async let a = coalescer.outcome(for: "k", job: starts.job("k"))
        async let b = coalescer.outcome(for: "k", job: starts.job("k"))
        #expect(await eventually(timeout: 60) { coalescer.jobsStarted + coalescer.requestsJoined >= 2 })
        starts.finish("k", with: .failure(.fetch(.sourceNotFound)))
        #expect(await a == .failure(.fetch(.sourceNotFound)))
        #expect(await b == .failure(.fetch(.sourceNotFound)))

        async let c = coalescer.outcome(for: "k", job: starts.job("k"))
        #expect(await eventually(timeout: 60) { coalescer.jobsStarted >= 2 })
        starts.finish("k", with: .success(1))
        #expect(await c == .success(1))
        #expect(starts.count == 2)
    }

    @Test func differentKeysAreDifferentJobs() async {
        let coalescer = StringCoalescer()
        let starts = Jobs<Int>()
        async let a = coalescer.outcome(for: "a", job: starts.job("a"))
        async let b = coalescer.outcome(for: "b", job: starts.job("b"))
        #expect(await eventually(timeout: 60) { coalescer.jobsStarted >= 2 })
        starts.finish("a", with: 1)
        starts.finish("b", with: 2)
        #expect(await (a, b) == (1, 2))
        #expect(coalescer.requestsJoined == 0)
    }
}
