import CSharedMemory
import ThumbRuntime

/// What the evictor reads of the index.
extension CacheIndex {
    /// Keys one batch of eviction gathers at most, so that what it holds in memory has a bound
    /// whatever the index's size: a larger need takes several batches of one plan.
    static let keysPerBatch = 262_144

    /// Removes what one plan (EvictionPlan) chooses so that at least `bytes` and `entries` go: its
    /// victims in batches of at most `limit` keys, each removed before the next is gathered, then
    /// lets the candidates it admits out of probation (after the removals, so that none of them is
    /// taken for a victim of the rest). A key's files go together. Returns what was removed, and
    /// in how many batches.
    func evict(bytes: UInt64, entries: Int, policy: EvictionPolicy, now: UInt64,
               limit: Int = keysPerBatch) throws(CacheFailure) -> (keys: Int, files: Int, bytes: UInt64, batches: Int) {
        let plan = EvictionPlan(self, policy: policy, freeing: RankCut.Amount(bytes: bytes, entries: entries), now: now)
        var cursor = 0
        var removed = (keys: 0, files: 0, bytes: UInt64(0), batches: 0)
        while true {
            let batch = plan.victims(from: &cursor, limit: limit)
            let gone = batch.keys.isEmpty ? (files: 0, bytes: UInt64(0)) : try remove(keys: batch.keys)
            noteEviction(keys: batch.keys.count, bytes: gone.bytes)
            removed = (removed.keys + batch.keys.count, removed.files + gone.files, removed.bytes &+ gone.bytes,
                       removed.batches + 1)
            if !batch.truncated { break }
        }
        try plan.admit(self)
        return removed
    }

    /// The keys to remove, in the order `policy` takes them, so that at least `bytes` and
    /// `entries` go, or the `limit` first of them, without removing them. Read without the lock:
    /// an entry changing meanwhile only makes the choice a little off. Under `probation`, the keys
    /// let out of probation are marked so, under the lock.
    func keysToEvict(bytes: UInt64, entries: Int, policy: EvictionPolicy, now: UInt64 = Clock.milliseconds(),
                     limit: Int = keysPerBatch) throws(CacheFailure) -> Set<UInt64> {
        let need = RankCut.Amount(bytes: bytes, entries: entries)
        var asked = need
        var plan = EvictionPlan(self, policy: policy, freeing: asked, now: now)
        var cursor = 0
        var chosen = plan.victims(from: &cursor, limit: limit)
        // A key kept for a newer file frees less than its older file counted: ask again for the
        // rest. Asking again finds nothing more once a plan freed no more than the one before it.
        for _ in 1..<4 {
            guard !chosen.truncated, chosen.freed.bytes < need.bytes || chosen.freed.entries < need.entries,
                  chosen.freed.entries < usage.entries else { break }
            asked = asked + RankCut.Amount(bytes: need.bytes > chosen.freed.bytes ? need.bytes - chosen.freed.bytes : 0,
                                           entries: max(0, need.entries - chosen.freed.entries))
            let next = EvictionPlan(self, policy: policy, freeing: asked, now: now)
            cursor = 0
            let more = next.victims(from: &cursor, limit: limit)
            guard more.freed.entries > chosen.freed.entries else { break }
            (plan, chosen) = (next, more)
        }
        try plan.admit(self)
        return chosen.keys
    }

    /// Runs `body` unless another process (it holds the index's second byte) or, unless `waiting`,
    /// another thread of this one is evicting; nil then. With `waiting`, after this process's
    /// eviction in progress ends.
    func whileEvicting<T>(waiting: Bool = false, _ body: () throws(CacheFailure) -> T) throws(CacheFailure) -> T? {
        var outcome: Result<T?, CacheFailure>?
        if waiting {
            evicting.withLock { _ in outcome = Result { () throws(CacheFailure) in try whileEvictionLocked(body) } }
        } else {
            evicting.withLockIfAvailable { _ in outcome = Result { () throws(CacheFailure) in try whileEvictionLocked(body) } }
        }
        return try outcome?.get()
    }

    /// `whileEvicting`'s work, once no other thread of this process evicts.
    private func whileEvictionLocked<T>(_ body: () throws(CacheFailure) -> T) throws(CacheFailure) -> T? {
        let mapping = current
        guard cshm_lock_byte(mapping.file.raw, 1, 0) == 0 else { return nil }
        defer { _ = cshm_unlock_byte(mapping.file.raw, 1) }
        return try body()
    }
}
