import Foundation
import Synchronization
import Testing
@testable import ThumbCore

/// thumbd's own threads for blocking work: a queue in order, a limit that refuses at once, and a
/// shutdown that runs what is queued and ends the threads.
@Suite(.timeLimit(.minutes(1)))
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

    @Test func workPastTheQueueIsRefusedAtOnce() async throws {
        // Given one thread held by a task, and a queue of two
        let pool = BlockingPool(name: "test", threads: 1, queueLimit: 2)
        let release = DispatchSemaphore(value: 0)
        let running = Atomic(false)
        let holding = Task { try await pool.run { running.store(true, ordering: .relaxed); release.wait() } }
        #expect(await eventuallyWithoutBlocking { running.load(ordering: .relaxed) })
        let queued = (0..<2).map { number in Task { try await pool.run { number } } }
        #expect(await eventuallyWithoutBlocking { pool.queued == 2 })

        // When one more task comes, it is refused without waiting
        await #expect(throws: ThumbError.overloaded) { try await pool.run { 99 } }

        // Then, released, the held and the queued ones finish
        release.signal()
        try await holding.value
        var values: [Int] = []
        for task in queued { values.append(try await task.value) }
        #expect(values == [0, 1])
        #expect(pool.tasksFinished == 3)
    }

    @Test func shutdownRunsWhatIsQueuedRefusesTheRestAndEndsTheThreads() async throws {
        // Given two threads, both held, and four tasks queued behind them
        let pool = BlockingPool(name: "test", threads: 2, queueLimit: 8)
        let release = DispatchSemaphore(value: 0)
        let held = (0..<2).map { _ in Task { try await pool.run { release.wait() } } }
        let queued = (0..<4).map { number in Task { try await pool.run { number } } }
        #expect(await eventuallyWithoutBlocking { pool.queued == 4 })

        // When the pool shuts down
        pool.shutdown()

        // Then new work is refused, the queued work still runs, and the threads end
        await #expect(throws: ThumbError.overloaded) { try await pool.run { 99 } }
        release.signal()
        release.signal()
        for task in held { try await task.value }
        var values: [Int] = []
        for task in queued { values.append(try await task.value) }
        #expect(Set(values) == [0, 1, 2, 3])
        pool.waitUntilStopped()
        #expect(pool.tasksFinished == 6)
    }
}

private final class Box<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}
