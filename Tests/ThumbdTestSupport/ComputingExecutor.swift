import Foundation
import Testing

// The imaging tests keep a core busy for seconds each. On Swift's cooperative pool (a thread per
// core) they held both threads, and every other test, however quick, waited behind them while its
// time limit ran: on a busy machine unit tests that take milliseconds failed their 60 s. Their own
// limits are generous (5 minutes): a test's clock runs while it waits for one of the pool's threads,
// and on a busy machine the last of them waits for most of the others.

extension Trait where Self == ExecutorTrait {
    /// The suite's tests compute for long: they run on a pool of their own, as many threads as
    /// cores, and Swift's cooperative pool stays free for the rest.
    package static var computing: Self { ExecutorTrait(executor: ComputingExecutor.shared) }
}

/// A task executor with a thread per core, each taking the next job in the order they came.
package final class ComputingExecutor: TaskExecutor, @unchecked Sendable {
    package static let shared = ComputingExecutor(threads: ProcessInfo.processInfo.activeProcessorCount)

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init(threads: Int) {
        for number in 0..<max(1, threads) {
            Thread.detachNewThread { [self] in
                Thread.current.name = "computing test \(number)"
                while true { run(next()) }
            }
        }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    private func next() -> UnownedJob {
        condition.withLock {
            while jobs.isEmpty { condition.wait() }
            return jobs.removeFirst()
        }
    }

    private func run(_ job: UnownedJob) {
        job.runSynchronously(on: asUnownedTaskExecutor())
    }
}
