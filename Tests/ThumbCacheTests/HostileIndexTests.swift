import Foundation
import Testing
import ThumbImaging
import ThumbdTestSupport
@testable import ThumbCache
@testable import ThumbRequest

/// The index is a file another process wrote, perhaps a thumbd taken over, and `thumbd cache`
/// reads it as root: crafted slots (valid checksums, any path, any state) never make it touch a
/// file outside the cache, follow a link, or read past a slot.
@Suite(.timeLimit(.minutes(2)))
struct HostileIndexTests {
    let cache: TestCache

    init() throws {
        cache = try TestCache()
    }

    /// Rewrites the slot of `path`'s entry as an attacker with write access to the index can, and
    /// marks the index as left half-changed by a dead process, so the next opener repairs it.
    func craft(_ index: CacheIndex, slotOf path: String, newPath: [UInt8], length: Int? = nil,
               state: IndexEntry.State) throws {
        let dead = TestCache.deadPID
        try index.withLock { mapping in
            let slot = mapping.findSlot(FNV1a.hash64(path), matchingPath: path)!
            var entry = mapping.entry(slot)
            mapping.writePath(Array(newPath.prefix(IndexLayout.Slot.pathCapacity)), at: slot)
            entry.pathLength = UInt8(truncatingIfNeeded: length ?? newPath.count)
            entry.state = state
            entry.ownerPID = dead
            mapping.write(entry, at: slot)
        }
        // Left for the next holder of the lock: a change under way by a process that died.
        index.current.store(UInt64(TestCache.deadPID), at: IndexLayout.Header.busyPID)
    }

    @Test(arguments: ["/../victim", "/served/../../victim", "/served/v/../../../victim", "/served/v/victim\0x"])
    func aSlotBeingEvictedByADeadProcessNeverUnlinksOutsideTheCache(path: String) throws {
        // Given a file beside the cache, and an index whose slot, "being evicted" by a dead
        // process, names it by a path that climbs out
        let victim = cache.directory.path + "/victim"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: victim))
        let index = try cache.index()
        try cache.store(index, servedName("vv"), bytes: 10, key: 1)
        try craft(index, slotOf: servedName("vv"), newPath: Array(path.utf8), state: .evicting)

        // When `thumbd cache stats` opens it and lists it
        let opened = try #require(try CacheIndex(existingAt: cache.indexPath, root: cache.root))
        let entries = try opened.entries()

        // Then the file outside is untouched, and the slot is gone
        #expect(FileManager.default.fileExists(atPath: victim))
        #expect(entries.isEmpty)
    }

    @Test func aPathLengthPastTheSlotIsNeverRead() throws {
        // Given a slot whose path length points past its own bytes
        let index = try cache.index()
        try cache.store(index, servedName("kept"), bytes: 10, key: 1)
        try cache.store(index, servedName("long"), bytes: 10, key: 2)
        try craft(index, slotOf: servedName("long"), newPath: Array(servedName("long").utf8), length: 250, state: .used)

        // When it is opened, listed, purged and evicted from
        let opened = try #require(try CacheIndex(existingAt: cache.indexPath, root: cache.root))
        let entries = try opened.entries()
        for policy in EvictionPolicy.allCases { _ = try opened.keysToEvict(bytes: 1 << 30, entries: 10, policy: policy) }

        // Then the damaged slot is dropped, and the other one stands
        #expect(entries.map(\.path) == [servedName("kept")])
        #expect(try CachePurge(index: opened, parser: RequestPathParser(verifier: .insecure, baseURL: nil,
                                                                        policy: Renderer.encodePolicy)).all().files == 1)
    }

    @Test func aSymlinkedDirectoryInTheCacheIsNeverFollowed() throws {
        // Given a fan-out directory that is a symlink to a directory outside, holding a file of
        // the name an entry of the index has
        let outside = cache.directory.path + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: outside + "/zz.jpg"))
        let index = try cache.index()
        try cache.store(index, servedName("zz"), bytes: 10, key: 1)
        try FileManager.default.removeItem(atPath: cache.root + "/served/z")
        try FileManager.default.createSymbolicLink(atPath: cache.root + "/served/z", withDestinationPath: outside)

        // When everything is purged, verified and repaired
        let opened = try #require(try CacheIndex(existingAt: cache.indexPath, root: cache.root))
        _ = try CachePurge(index: opened, parser: RequestPathParser(verifier: .insecure, baseURL: nil,
                                                                    policy: Renderer.encodePolicy)).all()
        let verifier = CacheVerifier(index: opened)
        try verifier.repair(try verifier.verify())

        // Then the file outside is untouched, and the index no longer counts it
        #expect(FileManager.default.fileExists(atPath: outside + "/zz.jpg"))
        #expect(opened.usage.entries == 0)
    }
}
