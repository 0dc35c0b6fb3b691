import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

// Swift's cooperative pool has a thread per core: two here. A synchronous test runs on one of them,
// and while it waits (for a process, a socket, a poll, a lock another process holds) that thread
// does nothing else. Two such tests at once and every other test, async or not, waits for them:
// its time limit runs meanwhile, and a test that never got a thread fails for being slow (a run
// on 2 cores saw three BlockingPoolTests, which take milliseconds, fail their 60 s so while a
// cluster test and a browser test held both threads).

extension Trait where Self == ExecutorTrait {
    /// The suite's tests block while they wait: they run on threads of their own, never on Swift's
    /// cooperative pool, which the tests that do not block and the time limits' clocks then have.
    package static var blocking: Self { ExecutorTrait(executor: ThreadPerJobExecutor.shared) }
}

/// Runs a test (or each test of a suite) with a task executor that is not Swift's cooperative
/// pool. The test stays in its task, so what it records (`#expect`, its time limit) is still its own.
package struct ExecutorTrait: SuiteTrait, TestTrait, TestScoping {
    package let executor: any TaskExecutor

    package var isRecursive: Bool { true }

    package func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(executor) { try await function() }
    }
}

/// A task executor that runs each job on a new thread, which ends with it. A test's body is one
/// job between two awaits, so its waits hold that thread alone.
package final class ThreadPerJobExecutor: TaskExecutor {
    package static let shared = ThreadPerJobExecutor()

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        Thread.detachNewThread {
            Thread.current.name = "blocking test"
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
