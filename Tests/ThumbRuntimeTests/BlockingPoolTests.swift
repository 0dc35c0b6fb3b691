import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbRuntime

/// thumbd's own threads for blocking work: a queue in order, a limit that refuses at once, and a
/// shutdown that runs what is queued and ends the threads. Work is handed over from the test's
/// thread (`submit`, which `run` uses), so nothing here waits for Swift's cooperative pool, which
/// other suites' blocking tests may hold.
@Suite(.blocking, .timeLimit(.minutes(1)))
struct BlockingPoolTests {
    @Test func theQueueIsFirstInFirstOutThroughItsGrowth() {
        var queue = TaskQueue()
        let seen = Box<[Int]>([])
        for round in 0..<3 {
            // Given more tasks than the ring has room for, taken out part way through
            for number in 0..<40 { queue.append { seen.value.append(round * 100 + number) } }
            for _ in 0..<25 { queue.popFirst()?() }
            for number in 40..<100 { queue.append { seen.value.append(round * 100 + number) } }
            while let task = queue.popFirst() { task() }
        }
        // Then every task ran once, in the order it came
        #expect(seen.value == (0..<3).flatMap { round in (0..<100).map { round * 100 + $0 } })
        #expect(queue.count == 0 && queue.popFirst() == nil)
    }

    @Test func workPastTheQueueIsRefusedAtOnce() {
        // Given one thread held by a task, and a queue of two filled behind it
        let pool = BlockingPool(role: .fetch, threads: 1, queueLimit: 2)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        #expect(pool.submit { started.signal(); release.wait(); done.signal() })
        #expect(started.wait(timeout: .now() + 10) == .success)
        #expect(pool.submit { done.signal() } && pool.submit { done.signal() })

        // When one more task comes, it is refused without waiting
        #expect(!pool.submit { done.signal() })
        #expect(pool.isFull && pool.queued == 2)

        // Then, released, the held and the queued ones finish
        release.signal()
        for _ in 0..<3 { #expect(done.wait(timeout: .now() + 10) == .success) }
        #expect(eventually { pool.tasksFinished == 3 })
    }

    @Test func shutdownRunsWhatIsQueuedRefusesTheRestAndEndsTheThreads() {
        // Given two threads, both held, and four tasks queued behind them
        let pool = BlockingPool(role: .fetch, threads: 2, queueLimit: 8)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let ran = Box<[Int]>([])
        let lock = NSLock()
        for _ in 0..<2 { #expect(pool.submit { started.signal(); release.wait() }) }
        for _ in 0..<2 { #expect(started.wait(timeout: .now() + 10) == .success) }
        for number in 0..<4 { #expect(pool.submit { lock.withLock { ran.value.append(number) } }) }

        // When the pool shuts down
        pool.shutdown()

        // Then new work is refused, the queued work still runs, and the threads end
        #expect(!pool.submit {})
        release.signal()
        release.signal()
        pool.waitUntilStopped()
        #expect(Set(lock.withLock { ran.value }) == [0, 1, 2, 3])
        #expect(pool.tasksFinished == 6)
    }
}

private final class Box<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}
