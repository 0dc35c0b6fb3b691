import Foundation
import Testing
@testable import ThumbCore

/// The shared index on its own: counting, links, two openers, crash repair, damage, eviction order,
/// the path arena and a full index.
struct CacheIndexTests {
    let cache: TestCache

    init() throws {
        cache = try TestCache()
    }

    @Test func storedFilesAreCountedAndRemovedOnesUncounted() throws {
        // Given three files of two keys
        let index = try cache.index()
        try cache.store(index, "/a/one.jpg", bytes: 100, key: 1)
        try cache.store(index, "/a/two.jpg", bytes: 200, key: 2)
        try cache.store(index, "/b/three.jpg", bytes: 300, key: 2)
        #expect(index.usage.entries == 3)
        #expect(index.usage.bytes == 600)

        // When key 2 is removed
        let removed = try index.remove { $0.keyHash == 2 }

        // Then its files are gone from disk and index alike
        #expect(removed.files == 2 && removed.bytes == 500)
        #expect(index.usage.entries == 1 && index.usage.bytes == 100)
        #expect(cache.exists("/a/one.jpg") && !cache.exists("/a/two.jpg") && !cache.exists("/b/three.jpg"))
        #expect(try CacheVerifier(index: index).verify().isConsistent)
    }

    @Test func aHardLinkCountsNoBytesAndGoesWithItsKey() throws {
        let index = try cache.index()
        try cache.store(index, "/first.jpg", bytes: 100, key: 7)
        try index.store(CacheIndex.Record(path: "/second.jpg", keyHash: 7, sourceHash: 1, bytes: 0, isLink: true)) {
            () throws(ThumbError) in try FileSystem.link(cache.root + "/first.jpg", to: cache.root + "/second.jpg")
        }
        #expect(index.usage.entries == 2 && index.usage.bytes == 100)
        #expect(try CacheVerifier(index: index).verify().isConsistent)

        try index.remove { $0.keyHash == 7 }
        #expect(!cache.exists("/first.jpg") && !cache.exists("/second.jpg"))
        #expect(index.usage.entries == 0 && index.usage.bytes == 0)
    }

    @Test func aSecondOpenerSeesTheFirstsEntriesAndHits() throws {
        // Given two openers of one index file, as two thumbd processes have
        let first = try cache.index()
        let second = try cache.index()
        try cache.store(first, "/made/by/first.webp", bytes: 1234, key: 3)

        // When the second records a hit
        #expect(second.usage.entries == 1 && second.usage.bytes == 1234)
        #expect(second.touch("/made/by/first.webp", at: 99_000_000))

        // Then the first sees it
        #expect(try first.entries().first?.lastUsed == 99_000_000)
        try cache.store(second, "/made/by/second.webp", bytes: 10, key: 4)
        #expect(first.usage.entries == 2 && first.usage.bytes == 1244)
    }

    @Test func halfDoneWorkOfADeadProcessIsSettledByTheDisk() throws {
        // Given a process that died after counting two files, only one of which it had published
        let index = try cache.index()
        let dead = try TestCache.deadPID()
        try cache.write("/published.jpg", bytes: 500)
        try index.withLock { mapping throws(ThumbError) in
            for (path, bytes) in [("/published.jpg", 400), ("/never-renamed.jpg", 300)] {
                try index.reserveLocked(mapping, CacheIndex.Record(path: path, keyHash: 1, sourceHash: 1, bytes: bytes, isLink: false))
                let slot = mapping.findSlot(FNV1a.hash64(path), matchingPath: path)!
                var entry = mapping.entry(slot)
                entry.ownerPID = dead
                mapping.write(entry, at: slot)
            }
        }

        // When a thumbd opens the index
        let reopened = try cache.index()

        // Then the published file counts with its size on disk, and the other is gone
        let entries = try reopened.entries()
        #expect(entries.map(\.path) == ["/published.jpg"])
        #expect(entries.first?.isSettled == true && reopened.usage.bytes == 500)
        #expect(try CacheVerifier(index: reopened).verify().isConsistent)
    }

    @Test func aDamagedIndexIsReplacedAndAScanAskedFor() throws {
        // Given an index in use
        let index = try cache.index()
        try cache.store(index, "/x.jpg", bytes: 10, key: 1)
        let rebuilt = Flag()
        index.onRebuild { rebuilt.set() }
        #expect(index.takeScanRequest())  // made anew at first
        #expect(!index.takeScanRequest())

        // When random bytes overwrite its header
        let handle = try #require(FileHandle(forWritingAtPath: cache.indexPath))
        try handle.write(contentsOf: (0..<256).map { _ in UInt8.random(in: 0...255) })
        try handle.close()

        // Then the next change finds out, puts a new index in place and asks for a scan
        try cache.store(index, "/y.jpg", bytes: 20, key: 2)
        #expect(rebuilt.isSet && index.takeScanRequest())
        #expect(try index.entries().map(\.path) == ["/y.jpg"])
        // and a process starting now opens the new one as it is
        let other = try cache.index()
        #expect(other.usage.entries == 1)
    }

    @Test func randomBytesAnywhereInTheIndexNeverCrashAndAreRepaired() throws {
        // Given an index in use, and random bytes written over one part of it after another:
        // the counts in the header, slots, the table, paths
        let index = try cache.index(maxEntries: 200)
        let layout = index.current.layout
        let regions = [(64, 192), (layout.slotsOffset, 64 * 10), (layout.tableOffset, 512), (layout.arenaOffset, 300)]
        var generator = SystemRandomNumberGenerator()
        for round in 0..<40 {
            try cache.store(index, "/round-\(round).jpg", bytes: 10, key: UInt64(round + 1))
            let (start, length) = regions[round % regions.count]
            let handle = try #require(FileHandle(forWritingAtPath: cache.indexPath))
            try handle.seek(toOffset: UInt64(start))
            try handle.write(contentsOf: (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            try handle.close()

            // When everything a serving thumbd does runs over it
            index.touch("/round-\(round).jpg")
            _ = index.usage
            _ = index.keysByLastUse()
            _ = try? index.entries()
            _ = try? cache.store(index, "/after-\(round).jpg", bytes: 5, key: 999)
            _ = try? Evictor(index: index, settings: CacheSettings(), logger: .init(label: "test")).runOnce()
        }

        // Then nothing trapped, and a process starting now, with a scan and a repair, agrees with the disk
        let reopened = try cache.index(maxEntries: 200)
        try CacheScan(index: reopened, identity: TestCache.identity,
                      logger: .init(label: "test")).run(fill: true)
        let verifier = CacheVerifier(index: reopened)
        try verifier.repair(try verifier.verify(), identity: TestCache.identity)
        #expect(try verifier.verify().isConsistent)
    }

    @Test func evictionRemovesTheLeastRecentlyUsedKeysDownToTheLowWaterMark() throws {
        // Given ten keys of 100 bytes used in order, then the first two used again
        let index = try cache.index()
        for number in 0..<10 {
            try cache.store(index, "/\(number).jpg", bytes: 100, key: UInt64(number + 1))
            index.touch("/\(number).jpg", at: 1_000 + UInt64(number))
        }
        index.touch("/0.jpg", at: 5_000)
        index.touch("/1.jpg", at: 5_001)

        // When the bound is 900 bytes with a low-water mark of 50 %, and nothing is left to scan
        try index.setScanning(false)
        var settings = CacheSettings()
        settings.maxBytes = 900
        settings.lowWaterPercent = 50
        let removed = try Evictor(index: index, settings: settings, logger: .init(label: "test")).runOnce()

        // Then the six oldest went, down to 400 bytes
        #expect(removed.keys == 6 && removed.bytes == 600)
        #expect((0..<10).filter { cache.exists("/\($0).jpg") } == [0, 1, 8, 9])
        #expect(index.usage.bytes == 400 && index.usage.keysEvicted == 6)
        #expect(try CacheVerifier(index: index).verify().isConsistent)
    }

    @Test func pathsSurviveTheArenaBeingCompacted() throws {
        // Given a small index whose path arena is used up many times over by churn
        let index = try cache.index(maxEntries: 16)
        let long = String(repeating: "p", count: 150)
        var kept: [String] = []
        for round in 0..<60 {
            let path = "/\(round)-\(long).jpg"
            try cache.store(index, path, bytes: 1, key: UInt64(round + 1))
            kept.append(path)
            if kept.count > 8 {
                let gone = kept.removeFirst()
                try index.remove { $0.path == gone }
            }
        }

        // Then every live entry still names its own file, and is found by it
        #expect(try index.entries().map(\.path).sorted() == kept.sorted())
        #expect(kept.allSatisfy { index.touch($0) })
        #expect(try CacheVerifier(index: index).verify().isConsistent)
    }

    @Test func aLargeIndexKeepsItsUnusedPagesOutOfMemory() throws {
        // Given an index for a million entries (about 300 MB, sparse) holding 200 files, 100 of
        // them removed again and 50 stored since
        let index = try cache.index(maxEntries: 1_000_000)
        for number in 0..<200 { try cache.store(index, "/\(number).jpg", bytes: 10, key: UInt64(number + 1)) }
        try index.remove { $0.keyHash % 2 == 0 }
        for number in 200..<250 { try cache.store(index, "/\(number).jpg", bytes: 10, key: UInt64(number + 1)) }

        // When a second process starts on it and everything that walks the index runs
        let second = try cache.index(maxEntries: 1_000_000)
        _ = second.keysByLastUse()
        #expect(try second.entries().count == 150)

        // Then the freed slots were used again, and both mappings hold only pages near those in
        // use (the kernel maps a few neighbours per fault), far from the 72 MB of slots and 16 MB
        // of table a walk of every slot brought into each
        #expect(index.current.slotsInUse == 200)
        let resident = try residentKilobytes(of: cache.indexPath)
        #expect(resident < 20_000, "\(resident) KiB of the index resident")
        #expect(try CacheVerifier(index: second).verify().isConsistent)
    }

    /// This process's resident memory in mappings of `path`, from /proc/self/smaps.
    func residentKilobytes(of path: String) throws -> Int {
        var inPath = false
        var total = 0
        // Read to the end: /proc files have no size to read up to.
        let smaps = try #require(try FileHandle(forReadingAtPath: "/proc/self/smaps")?.readToEnd())
        for line in String(decoding: smaps, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), fields.count >= 5 {
                inPath = fields.count >= 6 && fields[5] == path
            } else if inPath, fields.first == "Rss:", fields.count >= 2 {
                total += Int(fields[1]) ?? 0
            }
        }
        return total
    }

    @Test func aFullIndexPublishesNothing() throws {
        let index = try cache.index(maxEntries: 16)
        let capacity = index.usage.capacity
        for number in 0..<capacity { try cache.store(index, "/\(number).jpg", bytes: 1, key: UInt64(number + 1)) }

        #expect(throws: ThumbError.self) { try cache.store(index, "/one-too-many.jpg", bytes: 1, key: 999) }
        #expect(!cache.exists("/one-too-many.jpg"))
        #expect(index.usage.entries == capacity)
    }
}

/// A cache directory and its index in a temp directory.
final class TestCache: @unchecked Sendable {
    let directory: TestDirectory
    var root: String { directory.path + "/cache" }
    var indexPath: String { directory.path + "/cache.index" }

    init() throws {
        directory = try TestDirectory()
        try FileManager.default.createDirectory(atPath: directory.path + "/cache", withIntermediateDirectories: true)
    }

    /// Reads stored paths back as an insecure (unsigned) thumbd would.
    static let identity = StoredPathIdentity(parser: RequestPathParser(verifier: SignatureVerifier.insecure, baseURL: nil))

    func index(maxEntries: Int = 1000) throws -> CacheIndex {
        try CacheIndex(root: root, path: indexPath, maxEntries: maxEntries)
    }

    /// Publishes a file of `bytes` bytes at `path` through the index, as the cache store does.
    func store(_ index: CacheIndex, _ path: String, bytes: Int, key: UInt64, source: UInt64 = 1) throws {
        try index.store(CacheIndex.Record(path: path, keyHash: key, sourceHash: source, bytes: bytes, isLink: false)) {
            () throws(ThumbError) in
            do { try write(path, bytes: bytes) } catch { throw .internalFailure("\(error)") }
        }
    }

    func write(_ path: String, bytes: Int) throws {
        let url = URL(fileURLWithPath: root + path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(repeating: 7, count: bytes).write(to: url)
    }

    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: root + path) }

    /// The pid of a process that has ended.
    static func deadPID() throws -> UInt32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return UInt32(process.processIdentifier)
    }
}

final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
