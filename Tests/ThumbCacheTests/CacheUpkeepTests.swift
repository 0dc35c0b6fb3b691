import Foundation
import Logging
import Testing
import ThumbImaging
import ThumbdTestSupport
@testable import ThumbCache
@testable import ThumbRequest
@testable import ThumbRuntime

/// The index's helpers: nginx's hits log, the start-up scan, a file's identity, the old layout, verify and repair.
@Suite(.timeLimit(.minutes(2)))
struct CacheUpkeepTests {
    let cache: TestCache

    init() throws {
        cache = try TestCache()
    }

    @Test func hitsFromNginxsLogMarkFilesUsedAndEmptyTheLog() throws {
        // Given two stored files, and nginx's log of the files it served, by whatever path it has
        // for the cache root
        let index = try cache.index()
        try cache.store(index, servedName("abc"), bytes: 10, key: 1)
        try cache.store(index, servedName("xyz"), bytes: 10, key: 2)
        let log = cache.directory.path + "/hits.log"
        #expect(HitLog.create(log) == nil)
        let lines = "/var/cache/thumbd\(servedName("abc"))\n/srv/../other/root\(servedName("xyz"))\n"
            + "/c\(servedName("notstored"))\nno-slash\n/c/served/a/ab"
        try append(lines, to: log)
        let hits = HitLog(path: log, index: index, logger: Logger(label: "test"))

        // When thumbd reads it, and then the rest of a line nginx was still writing
        let before = Clock.milliseconds()
        #expect(hits.drain() == 4)
        try append("c.jpg\n", to: log)
        #expect(hits.drain() == 1)

        // Then both files were marked used, the hits counted, and the log emptied
        #expect(try index.entries().allSatisfy { $0.lastUsed >= before })
        #expect(index.usage.hitsReported == 5)
        #expect(try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int == 0)
    }

    @Test func aHitsLineLongerThanAnyPathIsDroppedUpToItsNewline() throws {
        // Given a stored file, and a hits log whose writer appends a line longer than any path,
        // ending in that file's path, without its newline yet
        let index = try cache.index()
        try cache.store(index, servedName("abc"), bytes: 10, key: 1)
        let log = cache.directory.path + "/hits.log"
        #expect(HitLog.create(log) == nil)
        let hits = HitLog(path: log, index: index, logger: Logger(label: "test"))
        let long = String(repeating: "x", count: 1 << 20)
        try append(long + servedName("abc"), to: log)

        // When thumbd reads it, then more of that line, its newline and a line of a hit
        #expect(hits.drain() == 0)
        let heldWhileUnfinished = hits.pendingLineBytes
        try append(long + servedName("abc") + "\n/c" + servedName("abc") + "\n", to: log)
        let read = hits.drain()

        // Then thumbd held no more of the line than a path's length, counted no hit for it, and
        // counted the next line's
        #expect(heldWhileUnfinished <= HitLog.maximumLineBytes)
        #expect(read == 1)
        #expect(index.usage.hitsReported == 1)
        #expect(hits.pendingLineBytes == 0)
    }

    @Test func theScanCountsWhatIsOnDiskAndRemovesTempFilesOfDeadWriters() throws {
        // Given a directory with thumbnails, a hard link, and temp files of a dead and a live writer
        try cache.write(servedName("one"), bytes: 300)
        try cache.write(servedName("two"), bytes: 5000)
        try FileSystem.link(cache.root + servedName("two"), to: cache.root + servedName("twin"))
        let dead = TestCache.deadPID
        try cache.write("/served/t/\(FileSystem.tempPrefix)\(dead)-abcdef", bytes: 50)
        try cache.write("/served/t/\(FileSystem.tempPrefix)\(getpid())-ghijkl", bytes: 50)
        let index = try cache.index()

        // When it runs
        let outcome = try CacheScan(index: index, oldLayout: TestCache.oldLayout, logger: Logger(label: "test")).run(fill: true)

        // Then every thumbnail is counted once by its blocks, the link with the file it shares, the
        // dead writer's temp file is gone and the live one's kept
        #expect(outcome.files == 3 && outcome.bytes == 4096 + 8192 && outcome.tempFilesRemoved == 1)
        #expect(index.usage.entries == 3 && index.usage.bytes == 4096 + 8192)
        let linked = try index.entries().filter { $0.path.contains("/tw") }
        #expect(Set(linked.map(\.keyHash)).count == 1)
        #expect(!cache.exists("/served/t/\(FileSystem.tempPrefix)\(dead)-abcdef"))
        #expect(cache.exists("/served/t/\(FileSystem.tempPrefix)\(getpid())-ghijkl"))
    }

    @Test func aRebuiltIndexKnowsEachFilesKeyAndSourceFromTheFileItself() throws {
        // Given a thumbnail published by the store, and its index lost
        let key = ThumbnailKey(source: "http://h/a.jpg", options: ProcessingOptions(), policy: Renderer.encodePolicy)
        let path = CachePath(signature: "abcdefghijk", documentURI: "/abcdefghijk/w:10/plain/http://h/a.jpg", format: .webp)
        try CacheStore(index: cache.index()).publish([1, 2, 3], at: path, key: key, sourceURL: "http://h/a.jpg")
        try FileManager.default.removeItem(atPath: cache.indexPath)

        // When a new index is filled by a scan
        let index = try cache.index()
        try CacheScan(index: index, oldLayout: TestCache.oldLayout, logger: Logger(label: "test")).run(fill: true)

        // Then its entry has the key and source it was stored with, so a purge by source finds it
        let entry = try #require(try index.entries().first)
        #expect(entry.path == path.relative)
        #expect(entry.keyHash == CacheIndex.keyHash(key) && entry.sourceHash == CacheIndex.sourceHash("http://h/a.jpg"))
    }

    @Test func theOldLayoutIsRemovedAtStartWithItsDirectoriesAndNothingElseIs() throws {
        // Given what an older thumbd stored at its URIs (deep directories, a hashed name), a file
        // of the operator's that is no thumbnail, and a thumbnail in today's layout
        let old = ["/insecure/w:10/plain/http:/h/a.jpg@webp", "/insecure/rs:fill:30:20/plain/http:/h/dir/b.png.auto.webp",
                   "/_hashed/ab/" + String(repeating: "ab", count: 32) + ".jpg"]
        for path in old { try cache.write(path, bytes: 100) }
        try cache.write("/notes/README", bytes: 10)
        try cache.write(servedName("kept"), bytes: 10)
        let index = try cache.index()

        // When the start-up scan runs
        let outcome = try CacheScan(index: index, oldLayout: TestCache.oldLayout, logger: Logger(label: "test")).run(fill: true)

        // Then the old thumbnails and their directories are gone, the operator's file stays,
        // uncounted, and today's thumbnail is counted
        #expect(outcome.oldLayoutFilesRemoved == 3 && outcome.unknownFiles == 1 && outcome.files == 1)
        let left = try FileManager.default.contentsOfDirectory(atPath: cache.root).sorted()
        #expect(left == ["notes", "served"])
        #expect(try index.entries().map(\.path) == [servedName("kept")])
    }

    @Test func filesStoredUnderATrustedSignatureAreRemovedWithTheirEntries() throws {
        // Given what an older thumbd stored under a trusted signature (counted, and not counted),
        // a key's thumbnail whose signature starts the same, and a private thumbnail
        let index = try cache.index()
        try cache.store(index, "/served/P/PartnerSignature01.png", bytes: 10, key: 1)
        try cache.store(index, "/served/P/PartnerSignature01.auto.webp", bytes: 10, key: 2)
        try cache.write("/served/P/PartnerSignature01.auto.none.jpg", bytes: 10)
        try cache.store(index, "/served/P/PartnerSignature01x.png", bytes: 10, key: 3)
        try cache.store(index, "/private/a/a0b1.png", bytes: 10, key: 4)

        // When thumbd starts with that signature trusted
        let removed = try index.removeServedFiles(of: ["PartnerSignature01"])

        // Then its served files are gone, with their entries, and nothing else is
        #expect(removed.files == 3 && removed.bytes == 3 * 4096)
        for name in ["PartnerSignature01.png", "PartnerSignature01.auto.webp", "PartnerSignature01.auto.none.jpg"] {
            #expect(!cache.exists("/served/P/" + name))
        }
        #expect(cache.exists("/served/P/PartnerSignature01x.png") && cache.exists("/private/a/a0b1.png"))
        let left = try index.entries().map(\.path).sorted()
        #expect(left == ["/private/a/a0b1.png", "/served/P/PartnerSignature01x.png"])
        #expect(try CacheVerifier(index: index).verify().isConsistent)
    }

    @Test func aDirectoryLargerThanTheIndexIsScannedInRoundsWithEvictionBetween() throws {
        // Given 40 thumbnails on disk and an index for 16
        for number in 0..<40 { try cache.write(servedName("n\(number)"), bytes: 10) }
        let index = try cache.index(maxEntries: 16)
        var settings = CacheSettings()
        settings.maxEntries = 16
        let scan = CacheScan(index: index, oldLayout: TestCache.oldLayout, logger: Logger(label: "test"))
        let evictor = Evictor(index: index, settings: settings, logger: Logger(label: "test"))

        // When scans that find it full alternate with eviction, as the upkeep rounds do
        var rounds = 0
        while rounds < 20 {
            rounds += 1
            let finished = (try? scan.run(fill: index.takeScanRequest())) != nil
            try evictor.runOnce()
            if finished && !index.takeScanRequest() { break }
        }

        // Then it ends within the bound, with every file on disk counted
        #expect(rounds > 1 && rounds < 20)
        #expect(index.usage.entries <= 16 && !index.usage.scanning)
        #expect(try CacheVerifier(index: index).verify().isConsistent)
    }

    @Test func verifyFindsEveryDifferenceAndRepairMendsThem() throws {
        // Given an index that agrees with the disk
        let index = try cache.index()
        try cache.store(index, servedName("kept"), bytes: 100, key: 1)
        try cache.store(index, servedName("deleted"), bytes: 100, key: 2)
        try cache.store(index, servedName("grown"), bytes: 100, key: 3)
        let verifier = CacheVerifier(index: index)
        #expect(try verifier.verify().isConsistent)

        // When files change behind its back
        try FileManager.default.removeItem(atPath: cache.root + servedName("deleted"))
        try cache.write(servedName("grown"), bytes: 5000)
        try cache.write(servedName("stranger"), bytes: 70)
        try cache.write("/served/s/\(FileSystem.tempPrefix)\(TestCache.deadPID)-xyzxyz", bytes: 5)

        // Then verify names each, and repair makes them agree
        let report = try verifier.verify()
        #expect(report.missing == [servedName("deleted")])
        #expect(report.unknown == [servedName("stranger")])
        #expect(report.sizeMismatches.map(\.path) == [servedName("grown")])
        #expect(report.tempFiles.count == 1)
        #expect(!report.isConsistent)
        try verifier.repair(report)
        let after = try verifier.verify()
        #expect(after.isConsistent)
        #expect(index.usage.bytes == 4096 + 8192 + 4096 && after.diskBytes == index.usage.bytes)
    }

    private func append(_ text: String, to path: String) throws {
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }
}
