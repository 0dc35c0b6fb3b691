import CSharedMemory
import ThumbRuntime

/// What the evictor reads of the index.
extension CacheIndex {
    /// The keys to remove, least recently used first, so that at least `bytes` and `entries` go:
    /// a key's files go together, and a key is as recent as the latest use of any of them. Read
    /// without the lock: an entry changing meanwhile only makes the choice a little off, and
    /// removal checks each entry again.
    ///
    /// A few passes over the slots and no sort of them all, so that ten million entries need no
    /// table of every key: a histogram of ages finds the age band where enough bytes and entries
    /// have been counted from the oldest end, only that band's slots are sorted to find the exact
    /// last-use time to cut at, and keys with a file used after it are kept.
    public func leastRecentlyUsedKeys(bytes: UInt64, entries: Int, now: UInt64 = Clock.milliseconds()) -> Set<UInt64> {
        var need = (bytes: bytes, entries: entries)
        var victims = Set<UInt64>()
        // A key kept for a newer file frees less than its older file counted: ask again for the rest.
        for _ in 0..<4 where need.bytes > 0 || need.entries > 0 {
            let chosen = keys(freeing: need, now: now)
            victims = chosen.keys
            guard chosen.freed.bytes < bytes || chosen.freed.entries < entries, chosen.freed.entries < usage.entries else { break }
            need = (need.bytes &+ (bytes > chosen.freed.bytes ? bytes - chosen.freed.bytes : 0),
                    need.entries + max(0, entries - chosen.freed.entries))
        }
        return victims
    }

    private func keys(freeing need: (bytes: UInt64, entries: Int), now: UInt64) -> (keys: Set<UInt64>, freed: (bytes: UInt64, entries: Int)) {
        let mapping = current
        var bandBytes = [UInt64](repeating: 0, count: AgeBand.count)
        var bandEntries = [Int](repeating: 0, count: AgeBand.count)
        forEachSettled(mapping) { entry in
            let band = AgeBand.of(now &- min(now, entry.lastUsed))
            bandBytes[band] &+= entry.bytes
            bandEntries[band] += 1
        }
        // The band where, counting from the oldest, the need is met: older bands go whole.
        var cut = AgeBand.count - 1
        var older = (bytes: UInt64(0), entries: 0)
        while cut > 0, older.bytes &+ bandBytes[cut] < need.bytes || older.entries + bandEntries[cut] < need.entries {
            older.bytes &+= bandBytes[cut]
            older.entries += bandEntries[cut]
            cut -= 1
        }
        var victims = Set<UInt64>()
        var newestVictim: UInt64 = 0
        var edge: [(lastUsed: UInt64, bytes: UInt64, keyHash: UInt64)] = []
        forEachSettled(mapping) { entry in
            let band = AgeBand.of(now &- min(now, entry.lastUsed))
            if band > cut {
                victims.insert(entry.keyHash)
                newestVictim = max(newestVictim, entry.lastUsed)
            } else if band == cut {
                edge.append((entry.lastUsed, entry.bytes, entry.keyHash))
            }
        }
        // Of the edge band, its oldest entries, as many as the need still asks for.
        var still = (bytes: need.bytes > older.bytes ? need.bytes - older.bytes : 0, entries: max(0, need.entries - older.entries))
        for slot in edge.sorted(by: { $0.lastUsed < $1.lastUsed }) {
            guard still.bytes > 0 || still.entries > 0 else { break }
            victims.insert(slot.keyHash)
            newestVictim = max(newestVictim, slot.lastUsed)
            still = (still.bytes > slot.bytes ? still.bytes - slot.bytes : 0, max(0, still.entries - 1))
        }
        // A key one of whose files was used after the newest file chosen is recent: it stays.
        forEachSettled(mapping) { entry in
            if entry.lastUsed > newestVictim, victims.contains(entry.keyHash) { victims.remove(entry.keyHash) }
        }
        var freed = (bytes: UInt64(0), entries: 0)
        forEachSettled(mapping) { entry in
            if victims.contains(entry.keyHash) { freed = (freed.bytes &+ entry.bytes, freed.entries + 1) }
        }
        return (victims, freed)
    }

    private func forEachSettled(_ mapping: IndexMapping, _ body: (IndexEntry) -> Void) {
        for slot in 0..<mapping.slotsInUse {
            let entry = mapping.entry(slot)
            if entry.state == .used, mapping.slotIsIntact(slot) { body(entry) }
        }
    }

    /// Runs `body` unless another process (it holds the index's second byte) or another thread of
    /// this one is evicting; nil then.
    func whileEvicting<T>(_ body: () throws(ThumbError) -> T) throws(ThumbError) -> T? {
guard evicting.try() else { return nil }
defer { evicting.unlock() }
        let mapping = current
        guard cshm_lock_byte(mapping.file.raw, 1, 0) == 0 else { return nil }
        defer { _ = cshm_unlock_byte(mapping.file.raw, 1) }
        return try body()
    }
}

/// Ages in milliseconds, in bands that grow with age: 16 a power of two, so a band is at most a
/// sixteenth of the ages in it wide. Band numbers grow with age.
enum AgeBand {
    static let count = 1024

    static func of(_ age: UInt64) -> Int {
        guard age >= 16 else { return Int(age) }
        let top = UInt64.bitWidth - 1 - age.leadingZeroBitCount
        return (top - 3) * 16 + Int((age >> UInt64(top - 4)) & 15)
    }
}
