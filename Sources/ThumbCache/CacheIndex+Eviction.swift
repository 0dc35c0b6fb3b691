import CSharedMemory
import ThumbRuntime

/// What the evictor reads of the index.
extension CacheIndex {
    /// The keys to remove, in the order `policy` takes them, so that at least `bytes` and
    /// `entries` go: a key's files go together. Read without the lock: an entry changing meanwhile
    /// only makes the choice a little off, and removal checks each entry again. Under `probation`,
    /// the keys let out of probation are marked so, under the lock.
    public func keysToEvict(bytes: UInt64, entries: Int, policy: EvictionPolicy,
                            now: UInt64 = Clock.milliseconds()) throws(ThumbError) -> Set<UInt64> {
        guard policy == .probation else { return oldestKeys(freeing: (bytes, entries), now: now) { _ in true }.keys }
        // Probation keeps its share of what stays; the least recently used of what it holds
        // beyond that leave it, each either admitted or evicted.
        let onProbation = keysOnProbation()
        var total = (bytes: UInt64(0), entries: 0)
        var held = (bytes: UInt64(0), entries: 0)
        forEachSettled(current) { entry in
            total = (total.bytes &+ entry.bytes, total.entries + 1)
            if onProbation.contains(entry.keyHash) { held = (held.bytes &+ entry.bytes, held.entries + 1) }
        }
        let share = (bytes: (total.bytes > bytes ? total.bytes - bytes : 0) / 100 * EvictionPolicy.probationPercent,
                     entries: max(0, total.entries - entries) * Int(EvictionPolicy.probationPercent) / 100)
        let beyond = (bytes: held.bytes > share.bytes ? held.bytes - share.bytes : 0,
                      entries: max(0, held.entries - share.entries))
        let candidates = oldestKeys(freeing: beyond, now: now) { onProbation.contains($0.keyHash) }
        // What the candidates cannot free comes from the rest's victims first (below);
        // what they free beyond the need is room the rest has for them (a cache filling up).
        let rest = (bytes: bytes > candidates.freed.bytes ? bytes - candidates.freed.bytes : 0,
                    entries: max(0, entries - candidates.freed.entries))
        let room = (bytes: candidates.freed.bytes > bytes ? candidates.freed.bytes - bytes : 0,
                    entries: max(0, candidates.freed.entries - entries))
        // Twice as many of the least recently used of the rest as are needed are the victims
        // that each candidate may go instead of, when it is asked for more often (TinyLFU's
        // admission).
        let main = oldestKeys(freeing: (2 * (rest.bytes &+ candidates.freed.bytes), 2 * (rest.entries + candidates.freed.entries)),
                              now: now) { !onProbation.contains($0.keyHash) }
        let admission = admit(candidates.keys, against: main.keys, after: rest, room: room)
        try markAdmitted(admission.admitted, winners: admission.winners, now: now)
        return admission.evicted
    }

    /// Pairs the candidates with main's victims, once the victims have freed `rest` and the
    /// candidates asked for most often have taken the `room`: the candidates oldest first, the
    /// victims asked for least often first (the least recently used of a tie), as a sampled LFU
    /// picks among LRU's tail; of a pair, the key the sketch counts fewer requests for goes (a tie
    /// sends the candidate). Returns the keys to evict, the candidates admitted, and which of those
    /// won a pair.
    private func admit(_ candidates: Set<UInt64>, against main: Set<UInt64>, after rest: (bytes: UInt64, entries: Int),
                       room: (bytes: UInt64, entries: Int))
        -> (evicted: Set<UInt64>, admitted: Set<UInt64>, winners: Set<UInt64>) {
        var keys: [UInt64: Contender] = [:]
        forEachSettled(current) { entry in
            guard candidates.contains(entry.keyHash) || main.contains(entry.keyHash) else { return }
            keys[entry.keyHash, default: Contender(key: entry.keyHash, estimate: uses.estimate(entry.keyHash))].add(entry)
        }
        // Sorted as arrays of what they are compared by: at a new cache's first eviction, a
        // million candidates.
        let victims = main.compactMap { keys[$0] }.sorted { ($0.estimate, $0.lastUsed) < ($1.estimate, $1.lastUsed) }
        var evicted = Set<UInt64>()
        var next = 0
        var freed = (bytes: UInt64(0), entries: 0)
        while next < victims.count, freed.bytes < rest.bytes || freed.entries < rest.entries {
            freed = (freed.bytes &+ victims[next].bytes, freed.entries + victims[next].entries)
            evicted.insert(victims[next].key)
            next += 1
        }
        var admitted = Set<UInt64>()
        var taken = (bytes: UInt64(0), entries: 0)
        // Room goes to the candidates asked for most often, the most recently used of a tie.
        var contenders = candidates.compactMap { keys[$0] }.sorted { ($0.estimate, $0.lastUsed) > ($1.estimate, $1.lastUsed) }
        for candidate in contenders {
            guard taken.bytes &+ candidate.bytes <= room.bytes, taken.entries + candidate.entries <= room.entries else { break }
            taken = (taken.bytes &+ candidate.bytes, taken.entries + candidate.entries)
            admitted.insert(candidate.key)
        }
        contenders.removeFirst(admitted.count)
        var winners = Set<UInt64>()
        for candidate in contenders.sorted(by: { $0.lastUsed < $1.lastUsed }) {
            if next < victims.count, candidate.estimate > victims[next].estimate {
                evicted.insert(victims[next].key)
                winners.insert(candidate.key)
                next += 1
            } else {
                evicted.insert(candidate.key)
            }
        }
        return (evicted, admitted.union(winners), winners)
    }

    /// Lets `keys` out of probation. A winner of a pair joins the rest at its most recently used
    /// end, as W-TinyLFU's admitted candidates do; one taken into room keeps its last use. The
    /// lock is taken a few thousand slots at a time, so stores wait for a batch, not for the index.
    private func markAdmitted(_ keys: Set<UInt64>, winners: Set<UInt64>, now: UInt64) throws(ThumbError) {
        guard !keys.isEmpty else { return }
        var cursor = 0
        var more = true
        while more {
            more = try withLock { mapping in
                let end = min(mapping.slotsInUse, cursor + 4096)
                for slot in cursor..<max(cursor, end) {
                    let entry = mapping.entry(slot)
                    guard entry.state == .used, keys.contains(entry.keyHash), mapping.slotIsIntact(slot) else { continue }
                    mapping.markAdmitted(slot)
                    if winners.contains(entry.keyHash), entry.lastUsed < now {
                        mapping.storeRelaxed(now, at: mapping.layout.slotOffset(slot) + IndexLayout.Slot.lastUsed)
                    }
                }
                cursor = end
                return end < mapping.slotsInUse
            }
        }
    }

    /// The keys none of whose files eviction has let out of probation yet: a hit only makes a file
    /// recently used, and a new variant of a key let out is not on probation. As many keys as
    /// probation holds, except while a new cache fills.
    private func keysOnProbation() -> Set<UInt64> {
        var keys = Set<UInt64>()
        forEachSettled(current) { if !$0.admitted { keys.insert($0.keyHash) } }
        forEachSettled(current) { if $0.admitted { keys.remove($0.keyHash) } }
        return keys
    }

    /// Of the keys whose every file `among` takes, the least recently used, so that at least
    /// `need` goes; a key is as recent as the latest use of any of its files.
    private func oldestKeys(freeing need: (bytes: UInt64, entries: Int), now: UInt64,
                            among: (IndexEntry) -> Bool) -> (keys: Set<UInt64>, freed: (bytes: UInt64, entries: Int)) {
        var asked = need
        var chosen = (keys: Set<UInt64>(), freed: (bytes: UInt64(0), entries: 0))
        // A key kept for a newer file frees less than its older file counted: ask again for the rest.
        // Asking again finds nothing more once a pass freed no more than the one before it.
        for _ in 0..<4 where asked.bytes > 0 || asked.entries > 0 {
            let before = chosen.freed.entries
            chosen = keys(freeing: asked, now: now, among: among)
            guard chosen.freed.bytes < need.bytes || chosen.freed.entries < need.entries,
                  chosen.freed.entries < usage.entries, chosen.freed.entries > before else { break }
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

/// A key eviction weighs: its files' bytes and count, its latest use, how often it was asked for.
private struct Contender {
    let key: UInt64
    let estimate: UInt8
    var lastUsed: UInt64 = 0
    var bytes: UInt64 = 0
    var entries = 0

    mutating func add(_ entry: IndexEntry) {
        lastUsed = max(lastUsed, entry.lastUsed)
        bytes &+= entry.bytes
        entries += 1
    }
}
