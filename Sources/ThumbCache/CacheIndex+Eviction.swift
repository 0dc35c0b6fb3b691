import CSharedMemory
import ThumbRuntime

/// What the evictor reads of the index.
extension CacheIndex {
    /// The keys to remove, in the order `policy` takes them, so that at least `bytes` and
    /// `entries` go: a key's files go together. Read without the lock: an entry changing meanwhile
    /// only makes the choice a little off, and removal checks each entry again.
    public func keysToEvict(bytes: UInt64, entries: Int, policy: EvictionPolicy,
                            now: UInt64 = Clock.milliseconds()) -> Set<UInt64> {
        guard policy == .probation else { return oldestKeys(freeing: (bytes, entries), now: now) { _ in true }.keys }
        // Probation keeps its share of what stays; what it holds beyond that goes first.
        var total = (bytes: UInt64(0), entries: 0)
        var held = (bytes: UInt64(0), entries: 0)
        forEachSettled(current) { entry in
            total = (total.bytes &+ entry.bytes, total.entries + 1)
            if Self.onProbation(entry) { held = (held.bytes &+ entry.bytes, held.entries + 1) }
        }
        let share = (bytes: (total.bytes > bytes ? total.bytes - bytes : 0) / 100 * EvictionPolicy.probationPercent,
                     entries: max(0, total.entries - entries) * Int(EvictionPolicy.probationPercent) / 100)
        let beyond = (bytes: min(bytes, held.bytes > share.bytes ? held.bytes - share.bytes : 0),
                      entries: min(entries, max(0, held.entries - share.entries)))
        let candidates = oldestKeys(freeing: beyond, now: now, among: Self.onProbation)
        let rest = (bytes: bytes > candidates.freed.bytes ? bytes - candidates.freed.bytes : 0,
                    entries: max(0, entries - candidates.freed.entries))
        // The least recently used of the rest: as many as the rest needs go anyway, and each of
        // the next may go instead of a candidate asked for more often (TinyLFU's admission).
        let main = oldestKeys(freeing: (rest.bytes &+ candidates.freed.bytes, rest.entries + candidates.freed.entries),
                              now: now) { !candidates.keys.contains($0.keyHash) }
        return admit(candidates.keys, against: main.keys, after: rest, now: now)
    }

    /// Pairs the candidates with main's victims, each side oldest first, once the oldest of main
    /// have freed `rest`; of a pair, the key the sketch counts fewer requests for goes (a tie
    /// sends the candidate), and a candidate that stays is served from now on, off probation.
    private func admit(_ candidates: Set<UInt64>, against main: Set<UInt64>, after rest: (bytes: UInt64, entries: Int),
                       now: UInt64) -> Set<UInt64> {
        let mapping = current
        var keys: [UInt64: (lastUsed: UInt64, bytes: UInt64, entries: Int)] = [:]
        forEachSettled(mapping) { entry in
            guard candidates.contains(entry.keyHash) || main.contains(entry.keyHash) else { return }
            let key = keys[entry.keyHash, default: (0, 0, 0)]
            keys[entry.keyHash] = (max(key.lastUsed, entry.lastUsed), key.bytes &+ entry.bytes, key.entries + 1)
        }
        let oldestFirst = { (a: UInt64, b: UInt64) in keys[a, default: (0, 0, 0)].lastUsed < keys[b, default: (0, 0, 0)].lastUsed }
        let victims = main.sorted(by: oldestFirst)
        var evicted = Set<UInt64>()
        var next = 0
        var freed = (bytes: UInt64(0), entries: 0)
        while next < victims.count, freed.bytes < rest.bytes || freed.entries < rest.entries {
            let key = keys[victims[next], default: (0, 0, 0)]
            freed = (freed.bytes &+ key.bytes, freed.entries + key.entries)
            evicted.insert(victims[next])
            next += 1
        }
        var promoted = Set<UInt64>()
        for candidate in candidates.sorted(by: oldestFirst) {
            if next < victims.count, uses.estimate(candidate) > uses.estimate(victims[next]) {
                evicted.insert(victims[next])
                promoted.insert(candidate)
                next += 1
            } else {
                evicted.insert(candidate)
            }
        }
        for slot in 0..<mapping.slotsInUse where promoted.contains(mapping.entry(slot).keyHash) {
            mapping.storeRelaxed(now, at: mapping.layout.slotOffset(slot) + IndexLayout.Slot.lastUsed)
        }
        return evicted
    }

    /// Not served since it was stored: nginx reported no hit, so its last use is its creation.
    static func onProbation(_ entry: IndexEntry) -> Bool { entry.lastUsed <= entry.created }

    /// Of the keys whose every file `among` takes, the least recently used, so that at least
    /// `need` goes; a key is as recent as the latest use of any of its files.
    private func oldestKeys(freeing need: (bytes: UInt64, entries: Int), now: UInt64,
                            among: (IndexEntry) -> Bool) -> (keys: Set<UInt64>, freed: (bytes: UInt64, entries: Int)) {
        var asked = need
        var chosen = (keys: Set<UInt64>(), freed: (bytes: UInt64(0), entries: 0))
        // A key kept for a newer file frees less than its older file counted: ask again for the rest.
        for _ in 0..<4 where asked.bytes > 0 || asked.entries > 0 {
            chosen = keys(freeing: asked, now: now, among: among)
            guard chosen.freed.bytes < need.bytes || chosen.freed.entries < need.entries,
                  chosen.freed.entries < usage.entries else { break }
            asked = (asked.bytes &+ (need.bytes > chosen.freed.bytes ? need.bytes - chosen.freed.bytes : 0),
                     asked.entries + max(0, need.entries - chosen.freed.entries))
        }
        return chosen
    }

    /// A few passes over the slots and no sort of them all, so that ten million entries need no
    /// table of every key: a histogram of ages finds the age band where enough bytes and entries
    /// have been counted from the oldest end, only that band's slots are sorted to find the exact
    /// last-use time to cut at, and keys with a file used after it (or not among those asked
    /// about) are kept.
    private func keys(freeing need: (bytes: UInt64, entries: Int), now: UInt64,
                      among: (IndexEntry) -> Bool) -> (keys: Set<UInt64>, freed: (bytes: UInt64, entries: Int)) {
        let mapping = current
        var bandBytes = [UInt64](repeating: 0, count: AgeBand.count)
        var bandEntries = [Int](repeating: 0, count: AgeBand.count)
        forEachSettled(mapping) { entry in
            guard among(entry) else { return }
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
            guard among(entry) else { return }
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
            if victims.contains(entry.keyHash), entry.lastUsed > newestVictim || !among(entry) { victims.remove(entry.keyHash) }
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
