import ThumbRuntime

/// One eviction's choice, made as cuts across rankings of the slots (RankCut) instead of
/// tables of every key, so that its memory does not grow with the index: a bit a slot, a few
/// histograms, and the keys of one batch (`CacheIndex.keysPerBatch`).
///
/// Slots are ranked by age (the oldest first) and by value: how often their key was asked for
/// (FrequencySketch), the least recently used of a tie first. Under `probation` (EvictionPolicy),
/// the candidates are the oldest of the slots on probation beyond its share, and the pool the
/// oldest of the rest, twice what is needed; the least valuable of the pool go first, as many as the
/// candidates cannot free; the most valuable candidates take the room that is left; then the best
/// of the other candidates meet the weakest of the pool, pair by pair, and of each pair the one
/// asked for less often goes (a tie sends the candidate). A key is ranked by its newest file, and a
/// key with a file out of probation is not on probation: the cuts are counted by slot, and each key
/// chosen is checked whole before it goes.
struct EvictionPlan {
    typealias Amount = RankCut.Amount

    private let mapping: IndexMapping
    private let uses: FrequencySketch
    private let policy: EvictionPolicy
    private let now: UInt64
    /// The slots in use and intact when the plan began: the later passes check no checksums.
    private var settled: [UInt64]
    /// The oldest last use among them; ages are ranked from it.
    private var oldest: UInt64 = 0
    private var ages: UInt64 = 1

    /// Age ranks below it: candidates (lru: victims).
    private var candidatesEnd: UInt64 = 0
    /// Age ranks below it: the pool of victims (probation).
    private var poolEnd: UInt64 = 0
    /// Value ranks of candidates from it on take the room.
    private var roomFrom = UInt64.max
    /// Value ranks of candidates from it on (below `roomFrom`) win their pair.
    private var winnersFrom = UInt64.max
    /// Value ranks of the pool below it go.
    private var victimsEnd: UInt64 = 0

    init(_ index: CacheIndex, policy: EvictionPolicy, freeing need: Amount, now: UInt64) {
        mapping = index.current
        uses = index.uses
        self.policy = policy
        self.now = now
        settled = [UInt64](repeating: 0, count: (mapping.slotsInUse + 63) / 64)
        var total = Amount.none
        var held = Amount.none
        oldest = now
        mapping.walkSlots(below: mapping.slotsInUse) { slot in
            let entry = mapping.entry(slot)
            guard entry.state == .used, mapping.slotIsIntact(slot) else { return }
            settled[slot / 64] |= 1 << UInt64(slot % 64)
            total = total + Self.amount(entry)
            if !entry.admitted { held = held + Self.amount(entry) }
            oldest = min(oldest, entry.lastUsed)
        }
        ages = now - oldest + 1
        guard total.entries > 0 else { return }
        switch policy {
        case .lru:
            var cut = RankCut(.atLeast(need), ranks: 0...ages - 1)
            passes(&cut) { entry in age(entry.lastUsed) }
            candidatesEnd = cut.end ?? 0
        case .probation:
            planProbation(freeing: need, total: total, held: held)
        }
    }

    private mutating func planProbation(freeing need: Amount, total: Amount, held: Amount) {
        // Probation keeps its share of what stays; the least recently used of what it holds
        // beyond that leave it, each either admitted or evicted.
        let percent = EvictionPolicy.probationPercent
        let share = Amount(bytes: (total.bytes > need.bytes ? total.bytes - need.bytes : 0) / 100 * percent,
                           entries: max(0, total.entries - need.entries) * Int(percent) / 100)
        var candidates = RankCut(.atLeast(Self.excess(held, over: share)), ranks: 0...ages - 1)
        passes(&candidates) { entry in entry.admitted ? nil : age(entry.lastUsed) }
        candidatesEnd = candidates.end ?? 0
        // What the candidates cannot free comes from the pool's least valuable first; what they
        // free beyond the need is room the rest has for them (a cache filling up).
        let freed = candidates.taken
        let rest = Self.excess(need, over: freed)
        let room = Self.excess(freed, over: need)
        let pooled = rest + freed
        var pool = RankCut(.atLeast(pooled + pooled), ranks: 0...ages - 1)
        passes(&pool) { entry in entry.admitted ? age(entry.lastUsed) : nil }
        poolEnd = pool.end ?? 0

        let top = 256 * ages - 1
        var restCut = RankCut(.atLeast(rest), ranks: 0...top)
        var roomCut = RankCut(.atMost(room), ranks: 0...top)
        while !(restCut.isDone && roomCut.isDone) {
            forEachSettled { _, entry in
                if let value = poolValue(entry) { restCut.count(value, Self.amount(entry)) }
                if let value = candidateValue(entry) { roomCut.count(top - value, Self.amount(entry)) }
            }
            restCut.finishPass()
            roomCut.finishPass()
        }
        roomFrom = top &- (roomCut.end ?? 0) &+ 1
        victimsEnd = restCut.end ?? 0

        // The best of the other candidates against the weakest of the rest of the pool.
        var contenders = [Int](repeating: 0, count: 256)
        var victims = [Int](repeating: 0, count: 256)
        forEachSettled { _, entry in
            if let value = candidateValue(entry), value < roomFrom { contenders[Int(value / ages)] += 1 }
            if let value = poolValue(entry), value >= victimsEnd { victims[Int(value / ages)] += 1 }
        }
        let won = Self.wins(contenders, against: victims)
        winnersFrom = roomFrom
        guard won > 0 else { return }
        var winners = RankCut(.atLeast(Amount(entries: roomCut.taken.entries + won)), ranks: 0...top)
        var paired = RankCut(.atLeast(Amount(entries: restCut.taken.entries + won)), ranks: 0...top)
        while !(winners.isDone && paired.isDone) {
            forEachSettled { _, entry in
                if let value = candidateValue(entry) { winners.count(top - value, Self.amount(entry)) }
                if let value = poolValue(entry) { paired.count(value, Self.amount(entry)) }
            }
            winners.finishPass()
            paired.finishPass()
        }
        winnersFrom = top &- (winners.end ?? 0) &+ 1
        victimsEnd = paired.end ?? 0
    }

    /// How many pairs the contenders win, the best of them meeting the weakest victims first, by
    /// how many of each there are at each count the sketch gives: a contender wins when asked for
    /// more often than its victim.
    static func wins(_ contenders: [Int], against victims: [Int]) -> Int {
        var best = contenders.count - 1
        var weakest = 0
        var left = (contenders: contenders[best], victims: victims[weakest])
        var won = 0
        while true {
            while left.contenders == 0 {
                best -= 1
                guard best >= 0 else { return won }
                left.contenders = contenders[best]
            }
            while left.victims == 0 {
                weakest += 1
                guard weakest < victims.count else { return won }
                left.victims = victims[weakest]
            }
            guard best > weakest else { return won }
            let pairs = min(left.contenders, left.victims)
            won += pairs
            left = (left.contenders - pairs, left.victims - pairs)
        }
    }

    // MARK: Ranks

    /// The rank of a last use by age; nil for one after the plan began: what was used since (a
    /// hit, a store) is recent, whatever the cuts say.
    private func age(_ lastUsed: UInt64) -> UInt64? {
        lastUsed <= now ? max(lastUsed, oldest) - oldest : nil
    }

    private func value(_ keyHash: UInt64, age: UInt64) -> UInt64 {
        UInt64(uses.estimate(keyHash)) * ages + age
    }

    /// A candidate's value; nil for a slot that is none.
    private func candidateValue(_ entry: IndexEntry) -> UInt64? {
        guard !entry.admitted, let age = age(entry.lastUsed), age < candidatesEnd else { return nil }
        return value(entry.keyHash, age: age)
    }

    private func poolValue(_ entry: IndexEntry) -> UInt64? {
        guard entry.admitted, let age = age(entry.lastUsed), age < poolEnd else { return nil }
        return value(entry.keyHash, age: age)
    }

    // MARK: What goes

    /// What a key's settled files add up to: evicting goes by these.
    struct Key {
        var admitted = false
        var lastUsed: UInt64 = 0
        var amount = Amount.none

        mutating func add(_ entry: IndexEntry) {
            admitted = admitted || entry.admitted
            lastUsed = max(lastUsed, entry.lastUsed)
            amount = amount + EvictionPlan.amount(entry)
        }
    }

    /// Whether a slot's key may go: the slot alone is ranked, as if it were its key's only file.
    private func mayGo(_ entry: IndexEntry) -> Bool {
        var key = Key()
        key.add(entry)
        return goes(entry.keyHash, key)
    }

    private func goes(_ keyHash: UInt64, _ key: Key) -> Bool {
        guard let age = age(key.lastUsed) else { return false }
        switch policy {
        case .lru:
            return age < candidatesEnd
        case .probation:
            guard age < (key.admitted ? poolEnd : candidatesEnd) else { return false }
            return value(keyHash, age: age) < (key.admitted ? victimsEnd : winnersFrom)
        }
    }

    /// The keys this plan evicts, at most `limit` of them (`truncated` then), and what they free:
    /// a pass gathers the keys one of whose files may go, and a second adds up each one's files.
    func victims(from cursor: inout Int, limit: Int) -> (keys: Set<UInt64>, freed: Amount, truncated: Bool) {
        var keys: [UInt64: Key] = [:]
        var truncated = false
        forEachSettled(from: cursor) { slot, entry in
            guard !truncated, keys[entry.keyHash] == nil, mayGo(entry) else { return }
            if keys.count < limit {
                keys[entry.keyHash] = Key()
            } else {
                truncated = true
                cursor = slot
            }
        }
        if !truncated { cursor = mapping.slotsInUse }
        guard !keys.isEmpty else { return ([], .none, truncated) }
        forEachSettled { _, entry in keys[entry.keyHash]?.add(entry) }
        var chosen = Set<UInt64>(minimumCapacity: keys.count)
        var freed = Amount.none
        for (keyHash, key) in keys where goes(keyHash, key) {
            chosen.insert(keyHash)
            freed = freed + key.amount
        }
        return (chosen, freed, truncated)
    }

    /// Lets the candidates that take the room or win their pair out of probation, under the lock a
    /// few thousand slots at a time, so stores wait for a batch, not for the index. A winner joins
    /// the rest at its most recently used end, as W-TinyLFU's admitted candidates do; one taken
    /// into room keeps its last use.
    func admit(_ index: CacheIndex) throws(CacheFailure) {
        guard policy == .probation, candidatesEnd > 0, winnersFrom < UInt64.max else { return }
        var cursor = 0
        var more = true
        while more {
            more = try index.withLock { mapping in
                let end = min(mapping.slotsInUse, cursor + 4096)
                for slot in cursor..<max(cursor, end) {
                    let entry = mapping.entry(slot)
                    guard entry.state == .used, let value = candidateValue(entry), value >= winnersFrom,
                          mapping.slotIsIntact(slot) else { continue }
                    mapping.markAdmitted(slot)
                    if value < roomFrom, entry.lastUsed < now {
                        mapping.storeRelaxed(now, at: mapping.layout.slotOffset(slot) + IndexLayout.Slot.lastUsed)
                    }
                }
                mapping.release(slots: cursor..<max(cursor, end))
                cursor = end
                return end < mapping.slotsInUse
            }
        }
    }

    // MARK: Passes

    /// Passes over the settled slots until the cut is found, counting each slot at the rank
    /// `rank` gives it (none: not counted).
    private func passes(_ cut: inout RankCut, _ rank: (IndexEntry) -> UInt64?) {
        while !cut.isDone {
            forEachSettled { _, entry in
                if let value = rank(entry) { cut.count(value, Self.amount(entry)) }
            }
            cut.finishPass()
        }
    }

    /// The slots settled when the plan began that still are, from slot `start` on.
    private func forEachSettled(from start: Int = 0, _ body: (Int, IndexEntry) -> Void) {
        mapping.walkSlots(from: start, below: min(mapping.slotsInUse, settled.count * 64)) { slot in
            guard settled[slot / 64] & (1 << UInt64(slot % 64)) != 0 else { return }
            let entry = mapping.entry(slot)
            if entry.state == .used { body(slot, entry) }
        }
    }

    private static func amount(_ entry: IndexEntry) -> Amount { Amount(bytes: entry.bytes, entries: 1) }

    private static func excess(_ amount: Amount, over other: Amount) -> Amount {
        Amount(bytes: amount.bytes > other.bytes ? amount.bytes - other.bytes : 0,
               entries: max(0, amount.entries - other.entries))
    }
}
