import Foundation
import Synchronization
import Testing
import ThumbdTestSupport
@testable import ThumbCache
@testable import ThumbRequest
@testable import ThumbRuntime

/// The shared index on its own: counting, links, two openers, crash repair, damage, eviction order,
/// crafted slots and a full index.
@Suite(.timeLimit(.minutes(2)))
struct CacheIndexTests {
    let cache: TestCache

    init() throws {
        cache = try TestCache()
    }

    @Test func storedFilesAreCountedAndRemovedOnesUncounted() throws {
        // Given three files of two keys
        let index = try cache.index()
        try cache.store(index, servedName("one"), bytes: 4096, key: 1)
        try cache.store(index, servedName("two"), bytes: 8192, key: 2)
        try cache.store(index, servedName("three"), bytes: 100, key: 2)
        #expect(index.usage.entries == 3)
        #expect(index.usage.bytes == 4096 + 8192 + 4096, "counted by the blocks they take")

        // When key 2 is removed
        let removed = try index.remove { $0.keyHash == 2 }

        // Then its files are gone from disk and index alike
        #expect(removed.files == 2 && removed.bytes == 8192 + 4096)
        #expect(index.usage.entries == 1 && index.usage.bytes == 4096)
        #expect(cache.exists(servedName("one")) && !cache.exists(servedName("two")) && !cache.exists(servedName("three")))
        #expect(try CacheVerifier(index: index).verify().isConsistent)
    }

    @Test func aHardLinkCountsNoBytesAndGoesWithItsKey() throws {
        let index = try cache.index()
        try cache.store(index, servedName("first"), bytes: 4096, key: 7)
        try FileSystem.createDirectories(forFile: cache.root + servedName("second"), below: cache.root)
        try index.store(CacheIndex.Record(path: servedName("second"), keyHash: 7, sourceHash: 1, bytes: 0, isLink: true)) {
            () throws(CacheFailure) in
            try systemCall { () throws(SystemFailure) in
                try FileSystem.link(cache.root + servedName("first"), to: cache.root + servedName("second"))
            }
        }
        #expect(index.usage.entries == 2 && index.usage.bytes == 4096)
        #expect(try CacheVerifier(index: index).verify().isConsistent)

        try index.remove { $0.keyHash == 7 }
        #expect(!cache.exists(servedName("first")) && !cache.exists(servedName("second")))
        #expect(index.usage.entries == 0 && index.usage.bytes == 0)
    }

    @Test func aSecondOpenerSeesTheFirstsEntriesAndHits() throws {
        // Given two openers of one index file, as two thumbd processes have
        let first = try cache.index()
        let second = try cache.index()
        try cache.store(first, servedName("first"), bytes: 4096, key: 3)

        // When the second records a hit
        #expect(second.usage.entries == 1 && second.usage.bytes == 4096)
        #expect(second.touch(servedName("first"), at: 99_000_000))

        // Then the first sees it
        #expect(try first.entries().first?.lastUsed == 99_000_000)
        try cache.store(second, servedName("second"), bytes: 4096, key: 4)
        #expect(first.usage.entries == 2 && first.usage.bytes == 8192)
    }

    @Test func halfDoneWorkOfADeadProcessIsSettledByTheDisk() throws {
        // Given a process that died after counting two files, only one of which it had published
        let index = try cache.index()
        let dead = TestCache.deadPID
        try cache.write(servedName("published"), bytes: 8192)
        try index.withLock { mapping throws(CacheFailure) in
            for (path, bytes) in [(servedName("published"), 400), (servedName("never-renamed"), 300)] {
                try index.reserveLocked(mapping, CacheIndex.Record(path: path, keyHash: 1, sourceHash: 1, bytes: bytes, isLink: false))
                let slot = mapping.findSlot(FNV1a.hash64(path), matchingPath: path)!
                var entry = mapping.entry(slot)
                entry.ownerPID = dead
                mapping.write(entry, at: slot)
            }
        }

        // When a thumbd opens the index, and checks its slots as it does after start
        let reopened = try cache.index()
        try reopened.checkSlotsAfterStart()

        // Then the published file counts with its size on disk, and the other is gone
        let entries = try reopened.entries()
        #expect(entries.map(\.path) == [servedName("published")])
        #expect(entries.first?.isSettled == true && reopened.usage.bytes == 8192)
        #expect(try CacheVerifier(index: reopened).verify().isConsistent)
    }

    @Test func aDamagedIndexIsReplacedAndAScanAskedFor() throws {
        // Given an index in use
        let index = try cache.index()
        try cache.store(index, servedName("x1"), bytes: 10, key: 1)
        let rebuilt = Atomic(false)
        index.onRebuild { rebuilt.store(true, ordering: .relaxed) }
        #expect(index.takeScanRequest())  // made anew at first
        #expect(!index.takeScanRequest())

        // When random bytes overwrite its header
        let handle = try #require(FileHandle(forWritingAtPath: cache.indexPath))
        try handle.write(contentsOf: (0..<256).map { _ in UInt8.random(in: 0...255) })
        try handle.close()

        // Then the next change finds out, puts a new index in place and asks for a scan
        try cache.store(index, servedName("y1"), bytes: 20, key: 2)
        #expect(rebuilt.load(ordering: .relaxed) && index.takeScanRequest())
        #expect(try index.entries().map(\.path) == [servedName("y1")])
        // and a process starting now opens the new one as it is
        let other = try cache.index()
        #expect(other.usage.entries == 1)
    }

    @Test func randomBytesAnywhereInTheIndexNeverCrashAndAreRepaired() throws {
        // Given an index in use, and random bytes written over one part of it after another:
        // the counts in the header, slots, the table, the paths in the slots
        let index = try cache.index(maxEntries: 200)
        let layout = index.current.layout
        let regions = [(64, 192), (layout.slotsOffset, 128 * 10), (layout.tableOffset, 512),
                       (layout.slotOffset(2) + IndexLayout.Slot.path, IndexLayout.Slot.pathCapacity)]
        var generator = SystemRandomNumberGenerator()
        for round in 0..<40 {
            try cache.store(index, servedName("round-\(round)"), bytes: 10, key: UInt64(round + 1))
            let (start, length) = regions[round % regions.count]
            let handle = try #require(FileHandle(forWritingAtPath: cache.indexPath))
            try handle.seek(toOffset: UInt64(start))
            try handle.write(contentsOf: (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            try handle.close()

            // When everything a serving thumbd does runs over it
            index.touch(servedName("round-\(round)"))
            _ = index.usage
            _ = try index.keysToEvict(bytes: 1 << 20, entries: 5, policy: .lru)
            _ = try? index.entries()
            _ = try? cache.store(index, servedName("after-\(round)"), bytes: 5, key: 999)
            _ = try? Evictor(index: index, settings: CacheSettings(), logger: .init(label: "test")).runOnce()
        }

        // Then nothing trapped, and a process starting now, with a scan and a repair, agrees with the disk
        let reopened = try cache.index(maxEntries: 200)
        try reopened.checkSlotsAfterStart()
        try CacheScan(index: reopened, oldLayout: TestCache.oldLayout, logger: .init(label: "test")).run(fill: true)
        let verifier = CacheVerifier(index: reopened)
        try verifier.repair(try verifier.verify())
        #expect(try verifier.verify().isConsistent)
    }

    @Test func theLeastRecentlyUsedKeysAreChosenByTheirNewestFile() throws {
        // Given ten keys of one block used in order, then the first two used again, and key 3 with a
        // second file used last of all
        let index = try cache.index()
        for number in 0..<10 {
            try cache.store(index, servedName("k\(number)"), bytes: 4096, key: UInt64(number + 1))
            index.touch(servedName("k\(number)"), at: 1_000 + UInt64(number))
        }
        try cache.store(index, servedName("k3-variant"), bytes: 4096, key: 4)
        index.touch(servedName("k3-variant"), at: 9_000)
        index.touch(servedName("k0"), at: 5_000)
        index.touch(servedName("k1"), at: 5_001)

        // When six blocks must go
        let victims = try index.keysToEvict(bytes: 6 * 4096, entries: 0, policy: .lru, now: 10_000)

        // Then the six oldest keys go, passing over key 3's, one of whose files was used last
        #expect(victims == Set([2, 4, 5, 6, 7, 8].map { UInt64($0 + 1) }))
        // and a count of entries is met the same way
        #expect(try index.keysToEvict(bytes: 0, entries: 2, policy: .lru, now: 10_000) == Set([2, 4].map { UInt64($0 + 1) }))
    }

    @Test func evictionKeepsEverythingTheCacheTakesOnDiskUnderTheBound() throws {
        // Given twenty keys of two blocks used in order
        let index = try cache.index()
        for number in 0..<20 {
            try cache.store(index, servedName("k\(number)"), bytes: 8192, key: UInt64(number + 1))
            index.touch(servedName("k\(number)"), at: 1_000 + UInt64(number))
        }
        try index.setScanning(false)

        // When the bound leaves room for about ten of them beside the index and the directories
        let overhead = UInt64(index.usage.fileSize) + index.files.directoryBytes()
        var settings = CacheSettings()
        settings.maxBytes = overhead + 10 * 8192
        settings.lowWaterPercent = 95
        settings.evictionPolicy = .lru
        let removed = try Evictor(index: index, settings: settings, logger: .init(label: "test")).runOnce()

        // Then the oldest went, and files, directories and index together are within the low-water mark
        let usage = index.usage
        #expect(removed.keys >= 10)
        #expect(usage.diskBytes <= settings.lowWaterBytes, "\(usage.diskBytes) on disk, low water \(settings.lowWaterBytes)")
        #expect(usage.directoryBytes > 0 && usage.keysEvicted == UInt64(removed.keys))
        let kept = (0..<20).filter { cache.exists(servedName("k\($0)")) }
        #expect(kept == Array((20 - kept.count)..<20), "the most recently used stay")
        #expect(try CacheVerifier(index: index).verify().isConsistent)
    }

    @Test func oneThreadOfAProcessEvictsAtATime() throws {
        // Given a thread of this process evicting
        let index = try cache.index()
        let othersTurn = Mutex<Int??>(nil)
        try index.whileEvicting { () throws(CacheFailure) in
            // When another thread of the same process asks to evict meanwhile
            let asked = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                let turn = try? index.whileEvicting { 1 }
                othersTurn.withLock { $0 = .some(turn) }
                asked.signal()
            }
            asked.wait()
        }

        // Then it is told no (the file's lock alone would have said yes: every thread holds it),
        // and may once the first is done
        #expect(othersTurn.withLock { $0 } == .some(.none))
        #expect(try index.whileEvicting { 2 } == 2)
    }

    @Test func aStoreFarPastTheBoundWaitsForTheEvictionUnderWayAndThenTakesItsTurn() throws {
        // Given a thread of this process evicting
        let index = try cache.index()
        let waited = Mutex<Int??>(nil)
        let done = DispatchSemaphore(value: 0)
        try index.whileEvicting { () throws(CacheFailure) in
            // When another thread asks to evict, waiting as a store far past the bound does
            Thread.detachNewThread {
                let turn = try? index.whileEvicting(waiting: true) { 3 }
                waited.withLock { $0 = .some(turn) }
                done.signal()
            }
            // Then it has no answer while the first evicts
            #expect(done.wait(timeout: .now() + 0.5) == .timedOut)
            #expect(waited.withLock { $0 } == nil)
        }

        // and takes its turn once the first is done
        #expect(done.wait(timeout: .now() + 30) == .success, "the waiting thread's turn")
        #expect(waited.withLock { $0 } == .some(3))
    }

    @Test func aPathThatIsNoCachePathIsNeverStored() throws {
        let index = try cache.index()

        for path in ["/served/a/../../x", "/served/a/b/c", "/elsewhere/a/ab", "/served/a/.thumbd-tmp-1", "/served/b/aa",
                     "/served/a/" + String(repeating: "a", count: 80)] {
            #expect(throws: CacheFailure.self, "\(path)") { try cache.store(index, path, bytes: 1, key: 1) }
        }
        #expect(index.usage.entries == 0)
    }

    @Test func aLargeIndexKeepsItsUnusedPagesOutOfMemory() throws {
        // Given an index for a million entries (161 MB, allocated but never touched) holding 200
        // files, 100 of them removed again and 50 stored since
        let index = try cache.index(maxEntries: 1_000_000)
        for number in 0..<200 { try cache.store(index, servedName("k\(number)"), bytes: 10, key: UInt64(number + 1)) }
        try index.remove { $0.keyHash % 2 == 0 }
        for number in 200..<250 { try cache.store(index, servedName("k\(number)"), bytes: 10, key: UInt64(number + 1)) }

        // When a second process starts on it and everything that walks the index runs
        let second = try cache.index(maxEntries: 1_000_000)
        _ = try second.keysToEvict(bytes: 1 << 30, entries: 0, policy: .lru)
        #expect(try second.entries().count == 150)

        // Then the freed slots were used again, and both mappings hold only pages near those in
        // use (the kernel maps a few neighbours per fault), far from the 144 MB of slots and 16 MB
        // of table a walk of every slot brought into each
        #expect(index.current.slotsInUse == 200)
        let resident = try residentKilobytes(of: cache.indexPath)
        #expect(resident < 20_000, "\(resident) KiB of the index resident")
        #expect(try CacheVerifier(index: second).verify().isConsistent)
    }

    @Test func walksOfEverySlotHoldAStretchOfTheIndexInMemoryNotAllOfIt() throws {
        // Given an index of 70,000 files (9 MB of slots), none of its slots in this process's memory
        let disk = SimulatedDisk()
        let open = { try CacheIndex(root: cache.root, path: cache.indexPath, maxEntries: 80_000, files: disk,
                                    clock: Clock.milliseconds) }
        let index = try open()
        for number in 0..<70_000 {
            let path = servedName("k\(number)")
            try index.store(CacheIndex.Record(path: path, keyHash: UInt64(number + 1), sourceHash: 1, bytes: 4096,
                                              isLink: false)) { () throws(CacheFailure) in disk.create(path, bytes: 4096) }
        }
        index.current.release(slots: 0..<index.current.slotsInUse)
        let before = try residentKilobytes(of: cache.indexPath)

        // When a second process starts on it, checks every slot, and evicts a tenth (victims all
        // over the slots)
        let second = try open()
        try second.checkSlotsAfterStart()
        let removed = try second.evict(bytes: 0, entries: 7_000, policy: .probation, now: Clock.milliseconds())

        // Then each walk gave back the slots behind it: what it left in memory is about a stretch
        // (4 MiB), beside the table the stores touched
        #expect(removed.keys >= 7_000, "ties at the cut's millisecond go with it")
        let resident = try residentKilobytes(of: cache.indexPath)
        #expect(resident - before < 5_000, "\(resident) KiB of the index resident, \(before) before")
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
        for number in 0..<capacity { try cache.store(index, servedName("k\(number)"), bytes: 1, key: UInt64(number + 1)) }

        #expect(throws: CacheFailure.self) { try cache.store(index, servedName("one-too-many"), bytes: 1, key: 999) }
        #expect(!cache.exists(servedName("one-too-many")))
        #expect(index.usage.entries == capacity)
    }
}
