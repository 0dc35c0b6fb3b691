import Foundation
import Synchronization
import Testing
@testable import ThumbJobs

/// The memory of recent originals: a byte budget, a lifetime, and a fresh fetch kept again.
@Suite(.timeLimit(.minutes(2)))
struct RecentSourcesTests {
    static func source(_ size: Int, _ byte: UInt8 = 1) -> FetchedSource {
        FetchedSource(bytes: [UInt8](repeating: byte, count: size), format: .jpeg)
    }

    @Test func theLeastRecentlyUsedLeavesFirstPastTheBudget() async {
        let recent = RecentSources(byteLimit: 400)
        recent.keep(Self.source(100), for: "a")
        recent.keep(Self.source(100), for: "b")
        _ = recent.source(for: "a")
        recent.keep(Self.source(100), for: "c")
        recent.keep(Self.source(100), for: "d")
        recent.keep(Self.source(100), for: "e")

        #expect(recent.source(for: "b") == nil)
        #expect(recent.source(for: "a") != nil)
        #expect(recent.heldBytes == 400)
    }

    @Test func anExpiredOriginalIsMissedAndItsFreshFetchIsKept() async throws {
        let clock = ManualClock()
        let recent = RecentSources(byteLimit: 1000, lifetime: .seconds(10), now: clock.now)
        recent.keep(Self.source(100, 1), for: "a")
        clock.advance(by: .seconds(9))
        #expect(recent.source(for: "a")?.bytes.first == 1)
        clock.advance(by: .seconds(1))

        // No sweep has run: the expired original is missed all the same
        #expect(recent.source(for: "a") == nil)
        // and the source fetched anew takes its place
        recent.keep(Self.source(100, 2), for: "a")
        #expect(recent.source(for: "a")?.bytes.first == 2)
        #expect(recent.heldBytes == 100)
    }

    @Test func theSweepLetsGoOfEveryExpiredOriginal() async throws {
        let clock = ManualClock()
        let recent = RecentSources(byteLimit: 1000, lifetime: .seconds(10), now: clock.now)
        recent.keep(Self.source(100), for: "a")
        clock.advance(by: .seconds(5))
        recent.keep(Self.source(200), for: "b")
        clock.advance(by: .seconds(5))

        // When the sweep runs as the first reaches its lifetime, then as the second does
        recent.dropExpired()
        #expect(recent.heldBytes == 200)
        clock.advance(by: .seconds(5))
        recent.dropExpired()

        #expect(recent.heldBytes == 0)
    }
}

/// A clock that stands still until a test moves it on.
final class ManualClock: Sendable {
    private let instant = Mutex(ContinuousClock.now)

    var now: @Sendable () -> ContinuousClock.Instant { { [self] in instant.withLock { $0 } } }

    func advance(by duration: Duration) {
        instant.withLock { $0 += duration }
    }
}
