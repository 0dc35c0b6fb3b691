import Foundation
import Logging
import Testing
@testable import ThumbCore

/// The index's helpers: nginx's hits log, the start-up scan, reading a path back, verify and repair.
struct CacheUpkeepTests {
    let cache: TestCache

    init() throws {
        cache = try TestCache()
    }

    @Test func hitsFromNginxsLogMarkFilesUsedAndEmptyTheLog() throws {
        // Given two stored files, one with quotes, a space and non-ASCII bytes in its name
        let index = try cache.index()
        try cache.store(index, "/plain/http:/h/a.jpg@webp", bytes: 10, key: 1)
        try cache.store(index, "/plain/http:/h/caf\u{e9} \"x\".jpg", bytes: 10, key: 2)
        let log = cache.directory.path + "/hits.log"
        try HitLog.create(log)
        let lines = "/plain/http://h/a.jpg@webp\n/plain/http://h/caf\u{e9} \"x\".jpg\n/not/stored.jpg\n/plain/http://h/a.jp"
        try append(lines, to: log)
        let hits = HitLog(path: log, index: index, logger: Logger(label: "test"))

        // When thumbd reads it, and then the rest of a line nginx was still writing
        let before = Clock.milliseconds()
        #expect(hits.drain() == 3)
        try append("g@webp\n", to: log)
        #expect(hits.drain() == 1)

        // Then both files were marked used, the hits counted, and the log emptied
        #expect(try index.entries().allSatisfy { $0.lastUsed >= before })
        #expect(index.usage.hitsReported == 4)
        #expect(try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int == 0)
    }

    @Test func theScanCountsWhatIsOnDiskAndRemovesTempFilesOfDeadWriters() throws {
        // Given a directory with thumbnails, a hard link, and temp files of a dead and a live writer
        try cache.write("/insecure/w:10/plain/http:/h/a.jpg@webp", bytes: 300)
        try cache.write("/insecure/w:20/plain/http:/h/a.jpg", bytes: 200)
        try FileSystem.createDirectories(forFile: cache.root + "/insecure/width:20/plain/http:/h/a.jpg")
        try FileSystem.link(cache.root + "/insecure/w:20/plain/http:/h/a.jpg", to: cache.root + "/insecure/width:20/plain/http:/h/a.jpg")
        let dead = try TestCache.deadPID()
        try cache.write("/insecure/\(FileSystem.tempPrefix)\(dead)-abcdef", bytes: 50)
        try cache.write("/insecure/\(FileSystem.tempPrefix)\(getpid())-ghijkl", bytes: 50)
        let index = try cache.index()

        // When it runs
        let outcome = try CacheScan(index: index, identity: TestCache.identity, logger: Logger(label: "test")).run(fill: true)

        // Then every thumbnail is counted once, the link with the file it shares, the dead
        // writer's temp file is gone and the live one's kept
        #expect(outcome.files == 3 && outcome.bytes == 500 && outcome.tempFilesRemoved == 1)
        #expect(index.usage.entries == 3 && index.usage.bytes == 500)
        let entries = try index.entries()
        let linked = entries.filter { $0.path.contains("w:20/") || $0.path.contains("width:20/") }
        #expect(Set(linked.map(\.keyHash)).count == 1)
        #expect(entries.allSatisfy { $0.sourceHash == CacheIndex.sourceHash("http://h/a.jpg") })
        #expect(!cache.exists("/insecure/\(FileSystem.tempPrefix)\(dead)-abcdef"))
        #expect(cache.exists("/insecure/\(FileSystem.tempPrefix)\(getpid())-ghijkl"))
    }

    @Test func aDirectoryLargerThanTheIndexIsScannedInRoundsWithEvictionBetween() throws {
        // Given 40 thumbnails on disk and an index for 16
        for number in 0..<40 { try cache.write("/\(number).jpg", bytes: 10) }
        let index = try cache.index(maxEntries: 16)
        var settings = CacheSettings()
        settings.maxEntries = 16
        let scan = CacheScan(index: index, identity: TestCache.identity, logger: Logger(label: "test"))
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

    @Test func aStoredPathReadsBackAsTheKeyAndSourceThatStoredIt() throws {
        // Given the request a negotiated WebP variant was made for
        let parser = RequestPathParser(verifier: SignatureVerifier.insecure, baseURL: nil)
        let request = try parser.parse(rawPath: "/insecure/rs:fill:30:20/plain/http://h/a.jpg")
            .negotiating(FormatNegotiation(webp: true), accept: "image/webp")
        let stored = CachePath(documentURI: "/insecure/rs:fill:30:20/plain/http://h/a.jpg", format: .webp, naming: request.naming)

        // When its path, as the file system spells it, is read back
        let identified = try #require(TestCache.identity.identify(CacheIndex.normalized(stored.relative)))

        // Then it names the same key and source
        #expect(identified.keyHash == CacheIndex.keyHash(request.key))
        #expect(identified.sourceHash == CacheIndex.sourceHash("http://h/a.jpg"))
    }

    @Test func verifyFindsEveryDifferenceAndRepairMendsThem() throws {
        // Given an index that agrees with the disk
        let index = try cache.index()
        try cache.store(index, "/kept.jpg", bytes: 100, key: 1)
        try cache.store(index, "/deleted.jpg", bytes: 100, key: 2)
        try cache.store(index, "/grown.jpg", bytes: 100, key: 3)
        let verifier = CacheVerifier(index: index)
        #expect(try verifier.verify().isConsistent)

        // When files change behind its back
        try FileManager.default.removeItem(atPath: cache.root + "/deleted.jpg")
        try cache.write("/grown.jpg", bytes: 150)
        try cache.write("/stranger.jpg", bytes: 70)
        try cache.write("/\(FileSystem.tempPrefix)\(try TestCache.deadPID())-xyzxyz", bytes: 5)

        // Then verify names each, and repair makes them agree
        let report = try verifier.verify()
        #expect(report.missing == ["/deleted.jpg"])
        #expect(report.unknown == ["/stranger.jpg"])
        #expect(report.sizeMismatches.map(\.path) == ["/grown.jpg"])
        #expect(report.tempFiles.count == 1)
        #expect(!report.isConsistent)
        try verifier.repair(report, identity: TestCache.identity)
        let after = try verifier.verify()
        #expect(after.isConsistent)
        #expect(index.usage.bytes == 320 && after.diskBytes == 320)
    }

    private func append(_ text: String, to path: String) throws {
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }
}
