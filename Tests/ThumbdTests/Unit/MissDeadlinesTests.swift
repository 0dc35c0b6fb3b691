import Foundation
import Synchronization
import Testing
@testable import ThumbCore

/// Every miss's deadline falls due once, in the order the misses came, and not before its time.
@Suite(.blocking, .timeLimit(.minutes(2)))
struct MissDeadlinesTests {
    @Test func deadlinesFallDueOnceInOrderAndNotBefore() throws {
        // Given deadlines of 0.3 s and three misses, the last one 0.1 s after the others
        let deadlines = MissDeadlines(seconds: 0.3)
        let expired = Mutex<[(miss: Int, at: ContinuousClock.Instant)]>([])
        let added = ContinuousClock.now
        for miss in 0..<2 { deadlines.add { expired.withLock { $0.append((miss, .now)) } } }
        Thread.sleep(forTimeInterval: 0.1)
        deadlines.add { expired.withLock { $0.append((2, .now)) } }

        // When they have all had time to fall due
        let giveUp = ContinuousClock.now + .seconds(10)
        while expired.withLock({ $0.count }) < 3 && .now < giveUp { Thread.sleep(forTimeInterval: 0.01) }
        Thread.sleep(forTimeInterval: 0.1)

        // Then each expired once, in order, none before its 0.3 s
        let record = expired.withLock { $0 }
        #expect(record.map(\.miss) == [0, 1, 2])
        #expect(record.allSatisfy { $0.at - added >= .milliseconds(300) })
        #expect(try #require(record.last).at - added >= .milliseconds(400))
    }
}
