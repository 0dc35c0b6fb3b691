import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbCache
@testable import ThumbRuntime

/// A trace through the index's own code: hits, stores and eviction counted by hand.
@Suite(.timeLimit(.minutes(1)))
struct TraceReplayTests {
    /// Two thumbnails asked for twice, five a crawler asks for once each: every file is 1000
    /// bytes (two 512-byte blocks), and 3500 bytes with a low water of 99 % hold three.
    static let scan = "h1 1000\nh2 1000\nh1 1000\nh2 1000\ns1 1000\ns2 1000\ns3 1000\ns4 1000\ns5 1000\n"

    /// lru: h1 h2 miss, hit, hit; s1..s5 miss, and from s2 on each pushes out the oldest: h1, h2,
    /// s1, s2. probation: the crawler's thumbnails replace each other; h1 and h2 stay.
    @Test(arguments: [(EvictionPolicy.lru, 0), (.probation, 2)])
    func whatTheCrawlerPushesOutOfWhatWasAskedForTwice(policy: EvictionPolicy, kept: Int) throws {
        let directory = try TestDirectory()
        let requests = try TraceReplay.parse(Self.scan)
        let result = try TraceReplay(maxBytes: 3500, lowWaterPercent: 99, policy: policy)
            .run(requests, directory: directory.path, kept: ["h1", "h2"])
        #expect(result == TraceReplay.Result(requests: 9, misses: 7, bytes: 9000, missedBytes: 7000, kept: kept))
    }

    @Test func aMalformedLineIsNamed() {
        #expect(throws: CacheFailure.self) { try TraceReplay.parse("a 10\nb ten\n") }
    }
}
