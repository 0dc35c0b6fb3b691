import Foundation
import Testing
import ThumbdTestSupport

/// `thumbd cache` as an operator runs it with flags only: `--cache-root` and `--cache-index` name
/// the cache, and `purge --key` is a thumbnail's key.
@Suite(.blocking, .timeLimit(.minutes(1)))
struct CacheCommandFlagsTests {
    @Test func theFlagsNameTheCacheAndPurgesKeyNamesAThumbnail() throws {
        // Given a cache with two thumbnails, which no environment names
        let cache = try TestCache()
        let index = try cache.index()
        try cache.store(index, servedName("aa"), bytes: 10, key: 0xA)
        try cache.store(index, servedName("bb"), bytes: 10, key: 0xB)
        let location = ["--cache-root", cache.root, "--cache-index=\(cache.indexPath)"]

        // When its stats are asked for with the flags
        let stats = try TestStack.thumbdCommand(["cache", "stats", "--json"] + location, environment: [:])

        // Then they are that cache's
        #expect(stats.status == 0, "\(stats.output)")
        #expect(stats.output.contains("\"entries\" : 2"), "\(stats.output)")

        // When one thumbnail is purged by its key
        let purge = try TestStack.thumbdCommand(["cache", "purge", "--key", "000000000000000a"] + location, environment: [:])

        // Then that one is gone and the other stays
        #expect(purge.status == 0, "\(purge.output)")
        #expect(purge.output.contains("purged 1 files"), "\(purge.output)")
        #expect(!cache.exists(servedName("aa")))
        #expect(cache.exists(servedName("bb")))
    }
}
