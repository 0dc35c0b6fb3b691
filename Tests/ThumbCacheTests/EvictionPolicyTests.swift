import Foundation
import Synchronization
import Testing
import ThumbdTestSupport
@testable import ThumbCache
@testable import ThumbRuntime

/// Which keys eviction takes, by policy, in an index of sizes only (SimulatedDisk) with a clock
/// the test moves: a crawler's single requests against thumbnails nginx serves again.
@Suite(.timeLimit(.minutes(1)))
struct EvictionPolicyTests {
    let cache: TestCache
    let disk = SimulatedDisk()
    let clock = TickClock()

    init() throws {
        cache = try TestCache()
    }

    private func index() throws -> CacheIndex {
        try CacheIndex(root: cache.root, path: cache.indexPath, maxEntries: 1000, files: disk,
                       clock: { [clock] in clock.now })
    }

    /// Stores key `key` a tick later than anything before it.
    private func store(_ index: CacheIndex, _ key: UInt64) throws {
        clock.tick()
        let path = servedName("k\(key)")
        try index.store(CacheIndex.Record(path: path, keyHash: key, sourceHash: 0, bytes: 4096, isLink: false)) {
            () throws(CacheFailure) in disk.create(path, bytes: 4096)
        }
    }

    /// A hit nginx reported for key `key`, a tick later.
    private func hit(_ index: CacheIndex, _ key: UInt64) {
        clock.tick()
        #expect(index.touch(servedName("k\(key)"), at: clock.now))
    }

    @Test func aCrawlersSingleRequestsGoBeforeTheThumbnailsServedAgain() throws {
        // Given ten thumbnails each served again, then thirty a crawler asked for once
        let index = try index()
        for key in UInt64(1)...10 { try store(index, key) }
        for key in UInt64(1)...10 { hit(index, key) }
        for key in UInt64(11)...40 { try store(index, key) }
        let now = clock.now

        // When twenty must go
        let probation = try index.keysToEvict(bytes: 0, entries: 20, policy: .probation, now: now)
        let lru = try index.keysToEvict(bytes: 0, entries: 20, policy: .lru, now: now)

        // Then probation, taking in as many as there is room for, the ones asked for most often,
        // evicts the crawler's oldest twenty and keeps every one served again,
        #expect(probation == Set(UInt64(11)...30))
        // where lru takes the ten served again first, their last use being the oldest
        #expect(lru == Set(UInt64(1)...10).union(UInt64(11)...20))
    }

    @Test func aNewThumbnailKeepsItsChanceWhileProbationHoldsLessThanItsShare() throws {
        // Given two hundred thumbnails served again, then one new one
        let index = try index()
        for key in UInt64(1)...200 { try store(index, key) }
        for key in UInt64(1)...200 { hit(index, key) }
        try store(index, 201)

        // When three must go
        let victims = try index.keysToEvict(bytes: 3 * 4096, entries: 0, policy: .probation, now: clock.now)

        // Then the new one stays (probation may keep a hundredth), and of the others, asked for
        // as often, the least recently used go
        #expect(victims == [1, 2, 3])
    }

    @Test func aKeyAskedForOftenBeforeItWasEvictedStaysOverNewerSingleRequests() throws {
        // Given ten thumbnails served again once and let out of probation, key 1 served four
        // times and then evicted, key 1 stored again (its history is still counted), then four a
        // crawler asked for once
        let index = try index()
        for key in UInt64(2)...11 { try store(index, key) }
        for key in UInt64(2)...11 { hit(index, key) }
        try settle(index)
        try store(index, 1)
        for _ in 0..<4 { hit(index, 1) }
        #expect(try index.remove { $0.keyHash == 1 }.files == 1)
        try store(index, 1)
        for key in UInt64(12)...15 { try store(index, key) }

        // When five must go
        let victims = try index.keysToEvict(bytes: 0, entries: 5, policy: .probation, now: clock.now)

        // Then key 1 meets the least recently used served again and stays, out of probation, in
        // its place; the crawler's four meet ones asked for twice and go
        #expect(victims == [2, 12, 13, 14, 15])
        #expect(try index.entries().filter { $0.keyHash == 1 }.allSatisfy(\.isAdmitted))
    }

    @Test func aHitDoesNotLetAThumbnailSkipAdmission() throws {
        // Given ninety-nine thumbnails each served three times, out of probation; then one stored
        // and served once again, and nine a crawler asked for once
        let index = try index()
        for key in UInt64(1)...99 { try store(index, key) }
        for _ in 0..<3 { for key in UInt64(1)...99 { hit(index, key) } }
        try settle(index)
        try store(index, 100)
        hit(index, 100)
        for key in UInt64(101)...109 { try store(index, key) }

        // When ten must go
        let victims = try index.keysToEvict(bytes: 0, entries: 10, policy: .probation, now: clock.now)

        // Then the one served once again is still on probation: it meets one served three times
        // and goes, as the crawler's nine do
        #expect(victims == Set(UInt64(100)...109))
    }

    @Test func aCandidateMeetsTheLeastAskedForOfTheOldestOfTheRest() throws {
        // Given key 1 served five times long ago, keys 2 to 20 served once since, all out of
        // probation; then key 21 stored and served twice
        let index = try index()
        try store(index, 1)
        for _ in 0..<5 { hit(index, 1) }
        for key in UInt64(2)...20 { try store(index, key) }
        for key in UInt64(2)...20 { hit(index, key) }
        try settle(index)
        try store(index, 21)
        for _ in 0..<2 { hit(index, 21) }

        // When one must go
        let victims = try index.keysToEvict(bytes: 0, entries: 1, policy: .probation, now: clock.now)

        // Then key 21 meets key 2, asked for less often than key 1 though used later, and stays
        #expect(victims == [2])
        #expect(try index.entries().filter { $0.keyHash == 21 }.allSatisfy(\.isAdmitted))
    }

    @Test func aKeyWithOneFileOutOfProbationIsNotOnProbation() throws {
        // Given key 1 out of probation, a variant of it stored since, and three single thumbnails
        let index = try index()
        try store(index, 1)
        try settle(index)
        clock.tick()
        try index.store(CacheIndex.Record(path: servedName("k1-variant"), keyHash: 1, sourceHash: 0, bytes: 4096,
                                          isLink: false)) { () throws(CacheFailure) in disk.create(servedName("k1-variant"), bytes: 4096) }
        for key in UInt64(2)...4 { try store(index, key) }

        // When two files must go
        let victims = try index.keysToEvict(bytes: 0, entries: 2, policy: .probation, now: clock.now)

        // Then key 1 stays whole: its new variant does not put the key back on probation
        #expect(victims == [2, 3])
    }

    @Test func aNeedOfMoreKeysThanABatchGathersIsMetInBatchesThatKeepWhatIsAskedFor() throws {
        // Given three hundred thumbnails stored, all on probation as a scan leaves them, the first
        // fifty served three times since
        let index = try index()
        for key in UInt64(1)...300 { try store(index, key) }
        for _ in 0..<3 { for key in UInt64(1)...50 { hit(index, key) } }
        try index.setScanning(false)

        // When the cache may hold two hundred and a batch gathers sixteen keys at most
        var settings = CacheSettings()
        settings.maxBytes = 1 << 40
        settings.maxEntries = 200
        let removed = try Evictor(index: index, settings: settings, logger: .init(label: "test"), keysPerBatch: 16).runOnce()

        // Then batches of sixteen take it down to the low-water mark, and every thumbnail served
        // again stays
        #expect(removed.keys == 120 && removed.batches == 8, "\(removed)")
        #expect(index.usage.entries == 180)
        #expect(Set(try index.entries().map(\.keyHash)).isSuperset(of: 1...50))
    }

    /// An eviction round that needs nothing freed: what probation holds beyond its share is let
    /// out into the room there is.
    private func settle(_ index: CacheIndex) throws {
        #expect(try index.keysToEvict(bytes: 0, entries: 0, policy: .probation, now: clock.now).isEmpty)
    }
}

/// One tick per event, as a replay counts time.
final class TickClock: Sendable {
    private let ticks = Atomic<UInt64>(0)

    var now: UInt64 { ticks.load(ordering: .relaxed) }

    func tick() { ticks.add(1, ordering: .relaxed) }
}
