import CSharedMemory
import ThumbRuntime

/// What the evictor reads of the index.
extension CacheIndex {
    /// Keys one round of eviction takes at most, so that what it holds in memory has a bound
    /// whatever the index's size; the evictor runs rounds until its need is met.
    static let keysPerRound = 262_144

    /// The keys to remove, in the order `policy` takes them, so that at least `bytes` and
    /// `entries` go, or the `limit` first of them: a key's files go together. Read without the
    /// lock: an entry changing meanwhile only makes the choice a little off, and removal checks
    /// each entry again. Under `probation`, the keys let out of probation are marked so, under the
    /// lock.
    func keysToEvict(bytes: UInt64, entries: Int, policy: EvictionPolicy, now: UInt64 = Clock.milliseconds(),
                     limit: Int = keysPerRound) throws(ThumbError) -> Set<UInt64> {
        let need = RankCut.Amount(bytes: bytes, entries: entries)
        var asked = need
        var plan = EvictionPlan(self, policy: policy, freeing: asked, now: now)
        var chosen = plan.victims(limit: limit)
        // A key kept for a newer file frees less than its older file counted: ask again for the
        // rest. Asking again finds nothing more once a plan freed no more than the one before it.
        for _ in 1..<4 {
            guard !chosen.truncated, chosen.freed.bytes < need.bytes || chosen.freed.entries < need.entries,
                  chosen.freed.entries < usage.entries else { break }
            asked = asked + RankCut.Amount(bytes: need.bytes > chosen.freed.bytes ? need.bytes - chosen.freed.bytes : 0,
                                           entries: max(0, need.entries - chosen.freed.entries))
            let next = EvictionPlan(self, policy: policy, freeing: asked, now: now)
            let more = next.victims(limit: limit)
            guard more.freed.entries > chosen.freed.entries else { break }
            (plan, chosen) = (next, more)
        }
        try plan.admit(self)
        return chosen.keys
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
