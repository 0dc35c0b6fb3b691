import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import ThumbRequest
import ThumbRuntime

/// What is in the cache directory: one entry per stored file (its path, key, source, bytes,
/// last use), in a file every thumbd process on the host maps, so that they all bound and evict
/// one cache together. Changes happen under a lock on the file that the kernel releases if its
/// holder dies; a holder that died half-way is noticed by the next one (`busyPID` still set) and
/// its work repaired from the slots. Hits only write a last-use time, without the lock.
///
/// A missing, foreign or damaged index is replaced by an empty one and `onRebuild` asks for a
/// scan of the directory to fill it; meanwhile thumbd serves as usual.
public final class CacheIndex: Sendable {
    /// What changes in this process's view of the index after `init`.
    private struct State {
        var scanWanted: Bool
        /// Every slot is checked once after start, in the background (`checkSlotsAfterStart`).
        var slotsUnchecked: Bool
        var rebuildHandler: (@Sendable () -> Void)?
        var storedHandler: (@Sendable () -> Void)?
    }

    /// The cache root the paths are relative to.
    public let root: String
    public let path: String
    let files: any CacheDisk
    /// Milliseconds for real caches; one tick per request for a replayed trace.
    let clock: @Sendable () -> UInt64
    let wantedLayout: IndexLayout
    let pid = UInt32(getpid())
    /// When this opener began: work its own pid left in the index from before then is an
    /// earlier process's that had the same pid (a container's thumbd often does).
    let startedAt: UInt64

    /// Serialises this process's changes; the file lock serialises the processes.
    private let changes = Mutex(())
    /// Taken briefly, inside `changes` or alone, and never around a call out.
    private let state: Mutex<State>
    /// One of this process's threads evicts at a time: the file's eviction lock is an open file
    /// description's, which every thread of the process holds alike.
    let evicting = Mutex(())
    private let _current: Mutex<IndexMapping>
    /// False for `thumbd cache`: a damaged index is left for a serving thumbd, which scans.
    private let mayRebuild: Bool
    /// How often each key was asked for, stored or not, beside the index: eviction's admission.
    let uses: FrequencySketch
    /// What this process counted of the shared totals: each process exports its own share, so that
    /// summing every instance's counters gives the total once.
    private let hitsCountedHere = Atomic<UInt64>(0)
    private let keysEvictedHere = Atomic<UInt64>(0)

    /// Opens the index at `path` for the cache at `root`, or makes a new one when there is none,
    /// it is damaged, or it was made for fewer entries (one made for more is kept: lowering
    /// CACHE_MAX_ENTRIES evicts down to it, and rescans nothing).
    public convenience init(root: String, path: String, maxEntries: Int) throws(CacheFailure) {
        try self.init(root: root, path: path, maxEntries: maxEntries, files: CacheFiles(root: root),
                      clock: Clock.milliseconds)
    }

    init(root: String, path: String, maxEntries: Int, files: any CacheDisk,
         clock: @escaping @Sendable () -> UInt64) throws(CacheFailure) {
        self.root = root
        self.path = path
        self.files = files
        self.clock = clock
        startedAt = clock()
        wantedLayout = IndexLayout(maxEntries: maxEntries)
        mayRebuild = true
        if let existing = try IndexMapping.open(path), existing.layout.capacity >= wantedLayout.capacity {
            _current = Mutex(existing)
            state = Mutex(State(scanWanted: false, slotsUnchecked: true))
        } else {
            _current = Mutex(try IndexMapping.create(path, layout: wantedLayout))
            state = Mutex(State(scanWanted: true, slotsUnchecked: false))
        }
        uses = try FrequencySketch(path: path + ".uses", capacity: _current.withLock { $0.layout.capacity })
        // What a process that died mid-change left is repaired on taking the lock; the rest of
        // the slots are checked after start, so thumbd serves at once whatever the index's size
        // (1,000,000 entries took 0.52 s to check).
        try withLock { _ in }
    }

    /// Checks every slot once, as an opener at start must: damaged slots go (and a scan is asked
    /// for), work that dead processes left half done is settled by the disk, the totals are
    /// recounted. Run by the start-up scan's thread before it scans.
    public func checkSlotsAfterStart() throws(CacheFailure) {
        try withLock { mapping throws(CacheFailure) in
            guard state.withLock({ state in defer { state.slotsUnchecked = false }; return state.slotsUnchecked }) else { return }
            if !repairLocked(mapping, checkingEverySlot: true, starting: true) { try rebuildLocked(replacing: mapping) }
        }
    }

    /// Opens an existing index whatever its size, for `thumbd cache`; nil when there is none.
    public init?(existingAt path: String, root: String) throws(CacheFailure) {
        guard let mapping = try IndexMapping.open(path) else { return nil }
        self.root = root
        self.path = path
        files = CacheFiles(root: root)
        clock = Clock.milliseconds
        startedAt = clock()
        wantedLayout = mapping.layout
        _current = Mutex(mapping)
        state = Mutex(State(scanWanted: false, slotsUnchecked: false))
        mayRebuild = false
        uses = try FrequencySketch(capacity: mapping.layout.capacity)
    }

    var current: IndexMapping {
        _current.withLock { $0 }
    }

    /// True once, when the index was made anew and the directory must be scanned to fill it.
    /// Later rebuilds (another process damaged or replaced the file) call `onRebuild` instead.
    public func takeScanRequest() -> Bool {
        state.withLock { state in
            defer { state.scanWanted = false }
            return state.scanWanted
        }
    }

    /// Asks for a scan, which the upkeep round takes up (one found the index full, say: eviction
    /// makes room first).
    func requestScan() {
        state.withLock { $0.scanWanted = true }
    }

    /// Whether a scan was asked for and not yet taken.
    var scanRequested: Bool {
        state.withLock { $0.scanWanted }
    }

    public func onRebuild(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.rebuildHandler = handler }
    }

    /// Called after each file this process stores, outside the lock.
    public func onStored(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.storedHandler = handler }
    }

    // MARK: Hits

    /// Records a use of the file at `path` (relative to the root) without taking the lock;
    /// false when the index has no such file.
    @discardableResult
    public func touch(_ path: String, at time: UInt64 = Clock.milliseconds()) -> Bool {
        touch(hash: FNV1a.hash64(path.utf8), at: time)
    }

    /// The same for a path by its hash (`FNV1a.hash64` of its bytes).
    @discardableResult
    func touch(hash: UInt64, at time: UInt64) -> Bool {
        let mapping = current
        guard let slot = mapping.findSlot(hash, matchingPath: nil) else { return false }
        mapping.storeRelaxed(time, at: mapping.layout.slotOffset(slot) + IndexLayout.Slot.lastUsed)
        uses.increment(mapping.load(mapping.layout.slotOffset(slot) + IndexLayout.Slot.keyHash) as UInt64)
        return true
    }

    /// Counts hits that nginx reported: in the index for `thumbd cache stats`, and as this process's share.
    public func countHits(_ count: Int) {
        current.addRelaxed(UInt64(count), at: IndexLayout.Header.hitsReported)
        hitsCountedHere.add(UInt64(count), ordering: .relaxed)
    }

    /// The hits this process read from nginx's log, and the keys it evicted: its share of the totals.
    public var countedHere: (hitsReported: UInt64, keysEvicted: UInt64) {
        (hitsCountedHere.load(ordering: .relaxed), keysEvictedHere.load(ordering: .relaxed))
    }

    /// Starts the hit count anew (a thumbd that begins to read nginx's reports).
    public func resetHitCount() {
        let mapping = current
        mapping.storeRelaxed(0, at: IndexLayout.Header.hitsReported)
        mapping.storeRelaxed(Clock.milliseconds(), at: IndexLayout.Header.hitsSince)
    }

    // MARK: Storing

    /// A key as the index groups files by: the first 16 hex digits of the digest thumbd logs.
    public static func keyHash(_ key: ThumbnailKey) -> UInt64 { keyHash(digest: key.digest) ?? 0 }

    public static func keyHash(digest: String) -> UInt64? {
        digest.utf8.count >= 16 ? UInt64(digest.prefix(16), radix: 16) : nil
    }

    public static func sourceHash(_ sourceURL: String) -> UInt64 { FNV1a.hash64(sourceURL) }

    /// What a file about to be published is.
    public struct Record: Sendable {
        public let path: String
        public let keyHash: UInt64
        public let sourceHash: UInt64
        /// A hard link to a file of the same key that is already counted.
        public let isLink: Bool
        let bytes: UInt64

        public init(path: String, key: ThumbnailKey, sourceURL: String, bytes: Int, isLink: Bool = false) {
            self.init(path: path, keyHash: CacheIndex.keyHash(key), sourceHash: CacheIndex.sourceHash(sourceURL),
                      bytes: bytes, isLink: isLink)
        }

        init(path: String, keyHash: UInt64, sourceHash: UInt64, bytes: Int, isLink: Bool) {
            self.path = path
            self.keyHash = keyHash
            self.sourceHash = sourceHash
            self.isLink = isLink
            self.bytes = isLink ? 0 : UInt64(bytes)
        }
    }

    /// Counts the file before `publish` puts it at its path, then settles the entry with what is
    /// on disk. When the index has no room, nothing is published. A crash between the two leaves
    /// a pending entry that the next holder of the lock settles the same way. A rendered file is
    /// a miss, which the sketch counts as a request (a link is the same request's second path).
    public func store(_ record: Record, publish: () throws(CacheFailure) -> Void) throws(CacheFailure) {
        if !record.isLink { uses.increment(record.keyHash) }
        try withLock { mapping throws(CacheFailure) in try reserveLocked(mapping, record) }
        defer {
            do throws(CacheFailure) {
                try withLock { mapping in settleLocked(mapping, record) }
            } catch {
                // The lock could not be taken: the entry stays pending and is settled later.
            }
            state.withLock { $0.storedHandler }?()
        }
        try publish()
    }

    /// The same, for files found on disk by a scan: entries for paths not yet in the index.
    public func adopt(_ records: [Record]) throws(CacheFailure) {
        try withLock { mapping throws(CacheFailure) in
            for record in records where mapping.findSlot(FNV1a.hash64(record.path), matchingPath: record.path) == nil {
                try reserveLocked(mapping, record)
                settleLocked(mapping, record)
            }
        }
    }

    /// Reads the sizes of these files again, and with `recount` the header's totals.
    public func resettle(_ paths: [String], recount: Bool) throws(CacheFailure) {
        try withLock { mapping in
            for path in paths {
                if let slot = mapping.findSlot(FNV1a.hash64(path), matchingPath: path) { settleSlotLocked(mapping, slot) }
            }
            if recount { _ = repairLocked(mapping, checkingEverySlot: false) }
        }
    }

    // MARK: Removing

    /// Unlinks every file whose entry `select` picks, then frees the entries: in batches, with
    /// the files deleted outside the lock. Returns the files and bytes removed.
    @discardableResult
    public func remove(where select: (IndexEntryView) -> Bool) throws(CacheFailure) -> (files: Int, bytes: UInt64) {
        try remove(among: { _ in true }, where: select)
    }

    /// Every file of these keys: a slot of another key is passed over before its path is read.
    @discardableResult
    func remove(keys: Set<UInt64>) throws(CacheFailure) -> (files: Int, bytes: UInt64) {
        try remove(among: { keys.contains($0.keyHash) }, where: { _ in true })
    }

    private func remove(among: (IndexEntry) -> Bool,
                        where select: (IndexEntryView) -> Bool) throws(CacheFailure) -> (files: Int, bytes: UInt64) {
        var cursor = 0
        var removed = (files: 0, bytes: UInt64(0))
        while true {
            let walked = cursor
            let (batch, finished) = try withLock { mapping in
                let batch = markForRemovalLocked(mapping, from: &cursor, among: among, where: select)
                return (batch, cursor >= mapping.slotsInUse)
            }
            if !batch.isEmpty {
                // Outside the lock; an entry whose file could not be removed is not freed.
                let gone = batch.map { files.remove($0.path) }
                try withLock { mapping in
                    for (victim, gone) in zip(batch, gone) { removed = add(removed, freeIfRemovedLocked(mapping, victim, gone: gone)) }
                }
            }
            // The slots walked leave this process's memory once their victims are freed.
            current.release(slots: walked..<cursor)
            if finished { return removed }
        }
    }

    private func add(_ total: (files: Int, bytes: UInt64), _ one: UInt64?) -> (files: Int, bytes: UInt64) {
        guard let bytes = one else { return total }
        return (total.files + 1, total.bytes &+ bytes)
    }

    // MARK: Reading

    /// The figures of the header, read without the lock.
    public var usage: Usage {
        let mapping = current
        typealias H = IndexLayout.Header
        let scanning = UInt32(truncatingIfNeeded: mapping.load(H.scanningPID) as UInt64)
        return Usage(
            entries: mapping.count(H.entryCount), bytes: mapping.load(H.totalBytes),
            directoryBytes: mapping.loadRelaxed(H.directoryBytes), capacity: mapping.layout.capacity,
            scanning: scanning != 0 && Self.isAlive(scanning),
            hitsReported: mapping.loadRelaxed(H.hitsReported), hitsSince: mapping.loadRelaxed(H.hitsSince),
            keysEvicted: mapping.loadRelaxed(H.keysEvicted), bytesEvicted: mapping.loadRelaxed(H.bytesEvicted),
            maxBytes: mapping.load(H.maxBytes), maxEntries: mapping.count(H.maxEntries),
            fileSize: mapping.layout.fileSize + uses.fileSize
        )
    }

    public struct Usage: Sendable {
        public let entries: Int
        /// The blocks the files take.
        public let bytes: UInt64
        /// The blocks the directories take, as the evictor last measured them.
        public let directoryBytes: UInt64
        public let capacity: Int
        /// A start-up scan is filling the index: the bound waits for it.
        public let scanning: Bool
        public let hitsReported: UInt64
        public let hitsSince: UInt64
        public let keysEvicted: UInt64
        public let bytesEvicted: UInt64
        public let maxBytes: UInt64
        public let maxEntries: Int
        /// The index file's size and its frequency sketch's (`<index>.uses`), all of both allocated
        /// when they were made.
        public let fileSize: Int

        /// Everything the cache takes on disk: files, directories, the index and its sketch.
        public var diskBytes: UInt64 { bytes &+ directoryBytes &+ UInt64(fileSize) }
    }

    /// Every entry in use, with its path, taken under the lock.
    public func entries() throws(CacheFailure) -> [IndexEntryView] {
        try withLock { mapping in
            var views: [IndexEntryView] = []
            for slot in 0..<mapping.slotsInUse {
                let entry = mapping.entry(slot)
                guard entry.state != .free, let path = mapping.path(slot), CacheFiles.isWellFormed(path) else { continue }
                views.append(IndexEntryView(entry, path: path))
            }
            return views
        }
    }

    /// Writes the bounds the serving thumbd enforces into the header, for `thumbd cache stats`.
    public func publishBounds(maxBytes: UInt64, maxEntries: Int, lowWaterPercent: Int) throws(CacheFailure) {
        try withLock { mapping in
            typealias H = IndexLayout.Header
            mapping.store(maxBytes, at: H.maxBytes)
            mapping.store(UInt64(maxEntries), at: H.maxEntries)
            mapping.store(UInt64(lowWaterPercent), at: H.lowWaterPercent)
        }
    }

    /// Marks the index as being filled by this process's scan (or done, with `false`).
    public func setScanning(_ scanning: Bool) throws(CacheFailure) {
        try withLock { mapping in
            mapping.store(UInt64(scanning ? pid : 0), at: IndexLayout.Header.scanningPID)
        }
    }

    /// How many purges this index has seen, read without the lock.
    public var purgeGeneration: UInt64 { current.load(IndexLayout.Header.purgeGeneration) }

    public func notePurge() throws(CacheFailure) {
        try withLock { mapping in
            mapping.store((mapping.load(IndexLayout.Header.purgeGeneration) as UInt64) &+ 1, at: IndexLayout.Header.purgeGeneration)
        }
    }

    func noteDirectoryBytes(_ bytes: UInt64) {
        current.storeRelaxed(bytes, at: IndexLayout.Header.directoryBytes)
    }

    func noteEviction(keys: Int, bytes: UInt64) {
        let mapping = current
        mapping.addRelaxed(UInt64(keys), at: IndexLayout.Header.keysEvicted)
        mapping.addRelaxed(bytes, at: IndexLayout.Header.bytesEvicted)
        keysEvictedHere.add(UInt64(keys), ordering: .relaxed)
    }

    // MARK: The lock

    /// Runs `body` holding this process's lock and the file's. On the way in it follows a file
    /// another process put in place, rebuilds one that was damaged, and repairs what a holder
    /// that died half-way left.
    func withLock<T>(_ body: (IndexMapping) throws(CacheFailure) -> T) throws(CacheFailure) -> T {
        var outcome: Result<T, CacheFailure>?
        changes.withLock { _ in outcome = Result { () throws(CacheFailure) in try withFileLock(body) } }
        return try outcome!.get()
    }

    /// `withLock`'s work, once this process's lock is held.
    private func withFileLock<T>(_ body: (IndexMapping) throws(CacheFailure) -> T) throws(CacheFailure) -> T {
        var mapping = current
        while true {
            try mapping.lock()
            let onDisk = IndexMapping.FileIdentity.of(path)
            if onDisk != mapping.identity || !mapping.headerIsIntact {
                let replacement: IndexMapping
                do throws(CacheFailure) {
                    if onDisk != mapping.identity, let other = try IndexMapping.open(path) {
                        replacement = other
                    } else if mayRebuild {
                        replacement = try rebuildLocked(replacing: mapping)
                    } else {
                        throw .internalFailure("the cache index \(path) is missing or damaged; a serving thumbd replaces it and scans the directory")
                    }
                } catch {
                    mapping.unlock()
                    throw error
                }
                mapping.unlock()
                setCurrent(replacement)
                mapping = replacement
                continue
            }
            typealias H = IndexLayout.Header
            let interrupted = (mapping.load(H.busyPID) as UInt64) != 0
            if interrupted || !countsAreSaneLocked(mapping), !repairLocked(mapping, checkingEverySlot: !interrupted) {
                askForRebuildScan()
            }
            mapping.store(UInt64(pid), at: H.busyPID)
            defer {
                mapping.store(UInt64(0), at: H.busyPID)
                mapping.unlock()
            }
            return try body(mapping)
        }
    }

    /// Puts an empty index in place of `old` (held locked by the caller) and asks for a scan.
    @discardableResult
    private func rebuildLocked(replacing old: IndexMapping) throws(CacheFailure) -> IndexMapping {
        let layout = old.headerIsIntact ? old.layout : wantedLayout
        let fresh = try IndexMapping.create(path, layout: layout)
        setCurrent(fresh)
        askForRebuildScan()
        return fresh
    }

    /// A scan is wanted at once: the index was rebuilt, or repaired past what its slots tell.
    private func askForRebuildScan() {
        state.withLock { state in
            state.scanWanted = true
            return state.rebuildHandler
        }?()
    }

    private func setCurrent(_ mapping: IndexMapping) {
        _current.withLock { $0 = mapping }
    }

    /// Maps the file another process put in place of ours (it rebuilt a damaged index), so
    /// hits are recorded in the index everyone uses; a no-op while ours is the one.
    public func followReplacement() throws(CacheFailure) {
        guard IndexMapping.FileIdentity.of(path) != current.identity else { return }
        try withLock { _ in }
    }

    /// Asks for a scan when the process filling the index died before it finished.
    public func claimOrphanedScan() throws(CacheFailure) {
        let scanner = UInt32(truncatingIfNeeded: current.load(IndexLayout.Header.scanningPID) as UInt64)
        guard scanner != 0, scanner != pid, !Self.isAlive(scanner) else { return }
        try withLock { mapping in
            mapping.store(UInt64(0), at: IndexLayout.Header.scanningPID)
            requestScan()
        }
    }

    /// Whether a process with this pid exists; a pid read from a damaged index may be anything.
    static func isAlive(_ pid: UInt32) -> Bool {
        guard let pid = pid_t(exactly: pid), pid > 0 else { return false }
        return kill(pid, 0) == 0 || errno != ESRCH
    }
}

/// An entry as callers outside the index see it.
public struct IndexEntryView: Sendable {
    public let path: String
    public let keyHash: UInt64
    public let sourceHash: UInt64
    public let bytes: UInt64
    public let created: UInt64
    public let lastUsed: UInt64
    public let isLink: Bool
    /// Let out of probation by eviction (EvictionPolicy.probation).
    public let isAdmitted: Bool
    public let isSettled: Bool

    init(_ entry: IndexEntry, path: String) {
        self.path = path
        keyHash = entry.keyHash
        sourceHash = entry.sourceHash
        bytes = entry.bytes
        created = entry.created
        lastUsed = entry.lastUsed
        isLink = entry.isLink
        isAdmitted = entry.admitted
        isSettled = entry.state == .used
    }
}
