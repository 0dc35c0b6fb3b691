#if canImport(Glibc)
import Glibc
#endif
import ThumbRuntime

/// The index's structural changes. Every function here that changes the file ends in `Locked`:
/// its caller holds `withLock`.
extension CacheIndex {
    typealias H = IndexLayout.Header

    /// Where a file being removed was.
    struct Victim {
        let slot: Int
        let pathHash: UInt64
        let path: String
    }

    func reserveLocked(_ mapping: IndexMapping, _ record: Record) throws(CacheFailure) {
        let hash = FNV1a.hash64(record.path)
        let now = clock()
        if let slot = mapping.findSlot(hash, matchingPath: record.path) {
            var entry = mapping.entry(slot)
            adjustTotalBytesLocked(mapping, adding: record.bytes, removing: entry.bytes)
            entry.keyHash = record.keyHash
            entry.sourceHash = record.sourceHash
            entry.bytes = record.bytes
            entry.isLink = record.isLink
            entry.state = .pending
            entry.ownerPID = pid
            entry.lastUsed = now
            mapping.write(entry, at: slot)
            return
        }
        let count = mapping.count(H.entryCount)
        guard count < mapping.layout.capacity else { throw .internalFailure("cache index is full (\(count) entries)") }
        guard CacheFiles.isWellFormed(record.path) else { throw .internalFailure("not a cache path: \(record.path)") }
        let slot: Int
        do throws(CacheFailure) {
            slot = try freeSlotLocked(mapping)
        } catch {
            // Fewer entries than slots, yet none free: slots were written over. Free them, and
            // have the directory scanned for the files they counted.
            if !repairLocked(mapping, checkingEverySlot: true) { requestScan() }
            slot = try freeSlotLocked(mapping)
        }
        let path = Array(record.path.utf8)
        mapping.writePath(path, at: slot)
        mapping.write(IndexEntry(
            pathHash: hash, keyHash: record.keyHash, sourceHash: record.sourceHash, bytes: record.bytes,
            created: now, lastUsed: now, pathLength: UInt8(path.count),
            state: .pending, isLink: record.isLink, ownerPID: pid
        ), at: slot)
        insertIntoTableLocked(mapping, hash: hash, slot: slot)
        mapping.store(UInt64(count + 1), at: H.entryCount)
        adjustTotalBytesLocked(mapping, adding: record.bytes, removing: 0)
    }

    /// Makes the entry for `record.path` agree with the disk once its publish is over. A file the
    /// index lost meanwhile (another process rebuilt it) is counted anew.
    func settleLocked(_ mapping: IndexMapping, _ record: Record) {
        let hash = FNV1a.hash64(record.path)
        if let slot = mapping.findSlot(hash, matchingPath: record.path) {
            let entry = mapping.entry(slot)
            if entry.state == .pending && entry.ownerPID == pid {
                settleSlotLocked(mapping, slot)
            }
        } else if files.info(record.path) != nil {
            do throws(CacheFailure) {
                try reserveLocked(mapping, record)
                if let slot = mapping.findSlot(hash, matchingPath: record.path) { settleSlotLocked(mapping, slot) }
            } catch {
                // No room: the file stays uncounted until `verify --repair` or the next scan.
            }
        }
    }

    /// A pending or evicting entry whose work is over or whose owner died: the disk decides.
    func settleSlotLocked(_ mapping: IndexMapping, _ slot: Int) {
        var entry = mapping.entry(slot)
        guard let path = mapping.path(slot), CacheFiles.isWellFormed(path) else { return freeLocked(mapping, slot) }
        if entry.state == .evicting {
            files.remove(path)
        }
        guard entry.state != .evicting, let info = files.info(path) else { return freeLocked(mapping, slot) }
        let isLink = entry.isLink && info.st_nlink > 1
        let bytes: UInt64 = isLink ? 0 : CacheFiles.allocatedBytes(info)
        adjustTotalBytesLocked(mapping, adding: bytes, removing: entry.bytes)
        entry.bytes = bytes
        entry.isLink = isLink
        entry.state = .used
        entry.ownerPID = 0
        mapping.write(entry, at: slot)
    }

    /// Up to a batch of entries `among` and `select` pick, marked as being removed by this process,
    /// from a stretch of slots at most, so that the lock is held for that long, not for a walk of
    /// the index; `among` is asked first, before the slot's checksum and path are read.
    func markForRemovalLocked(_ mapping: IndexMapping, from cursor: inout Int, among: (IndexEntry) -> Bool,
                              where select: (IndexEntryView) -> Bool) -> [Victim] {
        var batch: [Victim] = []
        let end = min(mapping.slotsInUse, cursor + IndexMapping.stretch)
        while cursor < end && batch.count < 256 {
            let slot = cursor
            cursor += 1
            var entry = mapping.entry(slot)
            guard entry.state == .used, among(entry), mapping.slotIsIntact(slot), let path = mapping.path(slot),
                  CacheFiles.isWellFormed(path),
                  select(IndexEntryView(entry, path: path)) else { continue }
            entry.state = .evicting
            entry.ownerPID = pid
            mapping.write(entry, at: slot)
            batch.append(Victim(slot: slot, pathHash: entry.pathHash, path: path))
        }
        return batch
    }

    /// Frees a victim's entry once its file is gone; its bytes, or nil when something else
    /// happened to it meanwhile (or the unlink failed, and the entry is in use again).
    func freeIfRemovedLocked(_ mapping: IndexMapping, _ victim: Victim, gone: Bool) -> UInt64? {
        var entry = mapping.entry(victim.slot)
        guard entry.state == .evicting, entry.ownerPID == pid, entry.pathHash == victim.pathHash else { return nil }
        if !gone, files.info(victim.path) != nil {
            entry.state = .used
            entry.ownerPID = 0
            mapping.write(entry, at: victim.slot)
            return nil
        }
        freeLocked(mapping, victim.slot)
        return entry.bytes
    }

    func freeLocked(_ mapping: IndexMapping, _ slot: Int) {
        let entry = mapping.entry(slot)
        if let position = mapping.tablePosition(of: slot, hash: entry.pathHash) {
            mapping.setTable(position, IndexMapping.tombstone)
            mapping.store((mapping.load(H.tombstones) as UInt64) &+ 1, at: H.tombstones)
        }
        mapping.store((mapping.load(H.entryCount) as UInt64) &- 1, at: H.entryCount)
        adjustTotalBytesLocked(mapping, adding: 0, removing: entry.bytes)
        mapping.writePath([], at: slot)
        mapping.write(IndexEntry(), at: slot)
        if (mapping.load(H.tombstones) as UInt64) > UInt64(mapping.layout.tableSize / 4) {
            rebuildTableLocked(mapping)
        }
    }

    /// Checks every entry, settles those whose owner died mid-way, recounts the totals and
    /// rebuilds the table from the slots (at start, only when a slot was damaged: an interrupted
    /// change was repaired before, and reading the whole table would bring it all into memory). False when a slot was damaged: its file may now be
    /// on disk without an entry, so the caller asks for a scan (as it does itself when the
    /// process filling the index died before it finished).
    func repairLocked(_ mapping: IndexMapping, checkingEverySlot: Bool, starting: Bool = false) -> Bool {
        var intact = true
        mapping.walkSlots(below: mapping.slotsInUse) { slot in
            let entry = mapping.entry(slot)
            if entry.state == .free && !checkingEverySlot { return }
            if entry.state == .free && entry == IndexEntry() { return }
            if !mapping.slotIsIntact(slot) || !(mapping.path(slot).map(CacheFiles.isWellFormed) ?? false) {
                mapping.writePath([], at: slot)
                mapping.write(IndexEntry(), at: slot)
                intact = false
            }
        }
        recountLocked(mapping, rebuildingTable: !(starting && intact))
        mapping.walkSlots(below: mapping.slotsInUse) { slot in
            let entry = mapping.entry(slot)
            if entry.state == .pending || entry.state == .evicting,
               ownerIsGone(entry.ownerPID, starting: starting, began: entry.lastUsed) {
                settleSlotLocked(mapping, slot)
            }
        }
        let scanner = UInt32(truncatingIfNeeded: mapping.load(H.scanningPID) as UInt64)
        if scanner != 0, ownerIsGone(scanner, starting: starting, began: 0) {
            mapping.store(UInt64(0), at: H.scanningPID)
            requestScan()
        }
        return intact
    }

    /// Whether the header's counts can be true; when not (the file was written over), the
    /// caller repairs before anything trusts them.
    func countsAreSaneLocked(_ mapping: IndexMapping) -> Bool {
        let layout = mapping.layout
        return (mapping.load(H.entryCount) as UInt64) <= UInt64(layout.capacity)
            && (mapping.load(H.tombstones) as UInt64) <= UInt64(layout.tableSize)
            && (mapping.load(H.slotsInUse) as UInt64) <= UInt64(layout.capacity)
            && (mapping.load(H.entryCount) as UInt64) <= (mapping.load(H.slotsInUse) as UInt64)
    }

    /// A process that died; at start, also this process's own pid on work `began` before this
    /// process did, left by an earlier process that had the same pid.
    private func ownerIsGone(_ owner: UInt32, starting: Bool, began: UInt64) -> Bool {
        owner == pid ? starting && began < startedAt : !Self.isAlive(owner)
    }

    private func recountLocked(_ mapping: IndexMapping, rebuildingTable: Bool) {
        var count: UInt64 = 0
        var bytes: UInt64 = 0
        mapping.walkSlots(below: mapping.slotsInUse) { slot in
            let entry = mapping.entry(slot)
            guard entry.state != .free else { return }
            count += 1
            bytes &+= entry.bytes
        }
        mapping.store(count, at: H.entryCount)
        mapping.store(bytes, at: H.totalBytes)
        if rebuildingTable { rebuildTableLocked(mapping) }
    }

    private func rebuildTableLocked(_ mapping: IndexMapping) {
        // Only non-zero words are written, so the untouched holes of a sparse file stay holes.
        let words = (mapping.base + mapping.layout.tableOffset).assumingMemoryBound(to: UInt64.self)
        for word in 0..<mapping.layout.tableSize / 2 where words[word] != 0 { words[word] = 0 }
        mapping.store(UInt64(0), at: H.tombstones)
        mapping.walkSlots(below: mapping.slotsInUse) { slot in
            let entry = mapping.entry(slot)
            if entry.state != .free { placeInTableLocked(mapping, hash: entry.pathHash, slot: slot) }
        }
    }

    /// Puts the slot in the table; a table that has no empty place (damaged) is rebuilt first.
    private func insertIntoTableLocked(_ mapping: IndexMapping, hash: UInt64, slot: Int) {
        if !placeInTableLocked(mapping, hash: hash, slot: slot) {
            rebuildTableLocked(mapping)
        }
    }

    /// False when every place was taken, which only a damaged table can be (it is at most half full).
    @discardableResult
    private func placeInTableLocked(_ mapping: IndexMapping, hash: UInt64, slot: Int) -> Bool {
        let mask = mapping.layout.tableSize - 1
        var position = Int(truncatingIfNeeded: hash) & mask
        for _ in 0..<mapping.layout.tableSize {
            let value = mapping.table(position)
            if value == 0 || value == IndexMapping.tombstone {
                if value == IndexMapping.tombstone {
                    mapping.store((mapping.load(H.tombstones) as UInt64) &- 1, at: H.tombstones)
                }
                mapping.setTable(position, UInt32(slot + 1))
                return true
            }
            position = (position + 1) & mask
        }
        return false
    }

    /// A free slot below the mark when entries were freed there, else the first never used.
    private func freeSlotLocked(_ mapping: IndexMapping) throws(CacheFailure) -> Int {
        let inUse = mapping.slotsInUse
        if mapping.count(H.entryCount) < inUse {
            var slot = mapping.count(H.freeCursor) % inUse
            for _ in 0..<inUse {
                if (mapping.load(mapping.layout.slotOffset(slot) + IndexLayout.Slot.state) as UInt8) == IndexEntry.State.free.rawValue {
                    mapping.store(UInt64((slot + 1) % inUse), at: H.freeCursor)
                    return slot
                }
                slot = (slot + 1) % inUse
            }
        }
        guard inUse < mapping.layout.capacity else { throw .internalFailure("cache index has no free slot") }
        mapping.store(UInt64(inUse + 1), at: H.slotsInUse)
        return inUse
    }

    private func adjustTotalBytesLocked(_ mapping: IndexMapping, adding: UInt64, removing: UInt64) {
        let total = mapping.load(H.totalBytes) as UInt64
        mapping.store((total > removing ? total - removing : 0) &+ adding, at: H.totalBytes)
    }
}

extension IndexMapping {
    static let tombstone = UInt32.max

    /// The slot holding the file whose path hashes to `hash` (and, when given, whose stored path
    /// is `matchingPath`). Safe without the lock: every index read is bounds-checked, and a slot
    /// that changes meanwhile at worst records a use for another file.
    func findSlot(_ hash: UInt64, matchingPath: String?) -> Int? {
        let mask = layout.tableSize - 1
        var position = Int(truncatingIfNeeded: hash) & mask
        for _ in 0..<layout.tableSize {
            let value = table(position)
            if value == 0 { return nil }
            if value != Self.tombstone, Int(value) <= layout.capacity {
                let slot = Int(value) - 1
                let offset = layout.slotOffset(slot)
                if (load(offset + IndexLayout.Slot.pathHash) as UInt64) == hash,
                   (load(offset + IndexLayout.Slot.state) as UInt8) != IndexEntry.State.free.rawValue,
                   matchingPath.map({ pathBytesEqual(slot, $0) }) ?? true {
                    return slot
                }
            }
            position = (position + 1) & mask
        }
        return nil
    }

    func tablePosition(of slot: Int, hash: UInt64) -> Int? {
        let mask = layout.tableSize - 1
        var position = Int(truncatingIfNeeded: hash) & mask
        for _ in 0..<layout.tableSize {
            let value = table(position)
            if value == 0 { return nil }
            if value == UInt32(slot + 1) { return position }
            position = (position + 1) & mask
        }
        return nil
    }
}
