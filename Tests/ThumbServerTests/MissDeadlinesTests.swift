import Foundation
import Synchronization
import Testing
import ThumbdTestSupport
@testable import ThumbServer

/// Every miss's deadline falls due once, in the order the misses came, and not before its time.
@Suite(.blocking, .timeLimit(.minutes(2)))
struct MissDeadlinesTests {
    @Test func deadlinesFallDueOnceInOrderAndNotBefore() throws {
        // Given deadlines of 0.3 s, three misses, and a fourth added once the first has expired
        let deadlines = MissDeadlines(seconds: 0.3)
        let added = Mutex<[ContinuousClock.Instant]>([])
        let expired = Mutex<[(miss: Int, at: ContinuousClock.Instant)]>([])
        func add(_ miss: Int) {
            added.withLock { $0.append(.now) }
            deadlines.add { expired.withLock { $0.append((miss, .now)) } }
        }
        for miss in 0..<3 { add(miss) }
        #expect(eventually { expired.withLock { !$0.isEmpty } })
        add(3)

        // When the last has fallen due: every one before it has, and any second call of theirs
        // would have come before it (one thread calls them, in the order they are due)
        #expect(eventually { expired.withLock { $0.contains { $0.miss == 3 } } })

        // Then each expired once, in order, none before its 0.3 s
        let record = expired.withLock { $0 }
        let starts = added.withLock { $0 }
        #expect(record.map(\.miss) == [0, 1, 2, 3])
        for (miss, at) in record { #expect(at - starts[miss] >= .milliseconds(300), "miss \(miss)") }
    }
}
