/// One stored file, as a slot of the index holds it.
struct IndexEntry: Equatable, Sendable {
    enum State: UInt8, Sendable {
        case free = 0
        /// The file is at its path and counted.
        case used = 1
        /// Counted before the rename that publishes it; settled by a stat once the rename is done,
        /// or, when its owner died, by whoever finds it.
        case pending = 2
        /// Being unlinked by `ownerPID`; freed once the file is gone.
        case evicting = 3
    }

    var pathHash: UInt64 = 0
    var keyHash: UInt64 = 0
    var sourceHash: UInt64 = 0
    var bytes: UInt64 = 0
    var created: UInt64 = 0
    var lastUsed: UInt64 = 0
    /// The path's bytes are in the slot (`IndexMapping.path(slot)`), written once when reserved.
    var pathLength: UInt8 = 0
    var state = State.free
    /// A hard link to a file another entry of the same key counts: its bytes are 0.
    var isLink = false
    /// Eviction let it out of probation (EvictionPolicy.probation): its hits alone never do.
    var admitted = false
    var ownerPID: UInt32 = 0
}

extension IndexMapping {
    func entry(_ slot: Int) -> IndexEntry {
        let o = layout.slotOffset(slot)
        typealias S = IndexLayout.Slot
        return IndexEntry(
            pathHash: load(o + S.pathHash), keyHash: load(o + S.keyHash), sourceHash: load(o + S.sourceHash),
            bytes: load(o + S.bytes), created: load(o + S.created), lastUsed: loadRelaxed(o + S.lastUsed),
            pathLength: load(o + S.pathLength),
            state: IndexEntry.State(rawValue: load(o + S.state)) ?? .free,
            isLink: (load(o + S.flags) as UInt8) & Flags.link != 0,
            admitted: (load(o + S.flags) as UInt8) & Flags.admitted != 0, ownerPID: load(o + S.ownerPID)
        )
    }

    /// Puts a path in a slot, zero-padded so the checksum sees the same bytes whatever was there;
    /// called under the lock, before `write`. The caller checks that it fits.
    func writePath(_ path: [UInt8], at slot: Int) {
        let start = base + layout.slotOffset(slot) + IndexLayout.Slot.path
        start.initializeMemory(as: UInt8.self, repeating: 0, count: IndexLayout.Slot.pathCapacity)
        path.withUnsafeBytes { start.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
    }

    /// The bits of a slot's flags byte.
    private enum Flags {
        static let link: UInt8 = 1
        static let admitted: UInt8 = 2
    }

    /// Writes every field and the checksum; called under the lock.
    func write(_ entry: IndexEntry, at slot: Int) {
        let o = layout.slotOffset(slot)
        typealias S = IndexLayout.Slot
        store(entry.pathHash, at: o + S.pathHash)
        store(entry.keyHash, at: o + S.keyHash)
        store(entry.sourceHash, at: o + S.sourceHash)
        store(entry.bytes, at: o + S.bytes)
        store(entry.created, at: o + S.created)
        storeRelaxed(entry.lastUsed, at: o + S.lastUsed)
        store(entry.pathLength, at: o + S.pathLength)
        store(entry.state.rawValue, at: o + S.state)
        store((entry.isLink ? Flags.link : 0) | (entry.admitted ? Flags.admitted : 0), at: o + S.flags)
        store(entry.ownerPID, at: o + S.ownerPID)
        store(slotChecksum(slot), at: o + S.checksum)
    }

    /// Marks a slot admitted out of probation, its flags and checksum only, so that a hit written
    /// meanwhile without the lock keeps its time; called under the lock.
    func markAdmitted(_ slot: Int) {
        let o = layout.slotOffset(slot)
        typealias S = IndexLayout.Slot
        store((load(o + S.flags) as UInt8) | Flags.admitted, at: o + S.flags)
        store(slotChecksum(slot), at: o + S.checksum)
    }

    /// A slot whose checksum does not match was torn by a crash or overwritten: never trusted.
    func slotIsIntact(_ slot: Int) -> Bool {
        load(layout.slotOffset(slot) + IndexLayout.Slot.checksum) == slotChecksum(slot)
    }

    private func slotChecksum(_ slot: Int) -> UInt32 {
        let start = base + layout.slotOffset(slot)
        typealias S = IndexLayout.Slot
        var hash = FNV1a.hash32(UnsafeRawBufferPointer(start: start, count: S.lastUsed))
        hash ^= FNV1a.hash32(UnsafeRawBufferPointer(start: start + S.pathLength, count: S.checksum - S.pathLength))
            &* 0x9e37_79b1
        hash ^= FNV1a.hash32(UnsafeRawBufferPointer(start: start + S.path, count: S.pathCapacity)) &* 0x85eb_ca6b
        return hash
    }
}
