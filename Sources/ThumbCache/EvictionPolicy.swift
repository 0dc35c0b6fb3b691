/// Which keys eviction takes first. nginx reports every hit, so the index knows when each file
/// was last used; a sketch beside it counts how often each key was asked for, evicted keys included.
public enum EvictionPolicy: String, Sendable, CaseIterable {
    /// Least recently used first, whatever a thumbnail's history: one crawler's pass over more
    /// thumbnails than the cache holds flushes everything people look at (nginx's proxy_cache does
    /// the same).
    case lru
    /// W-TinyLFU (Caffeine), kept in the index: a new thumbnail is on probation, which may keep a
    /// hundredth of the cache, least recently used first; hits keep it there, recently used. Past
    /// that share probation's least recently used are candidates, and twice as many of the rest's
    /// least recently used as are needed its victims; the victims asked for least often go first,
    /// as many as the candidates cannot free, the candidates asked for most often take whatever
    /// room is left, and the best of the other candidates meet the weakest victims, pair by pair:
    /// of each pair the one asked for less often lately goes (counted in FrequencySketch, misses
    /// of keys long evicted included). A candidate that stays is admitted, marked so in its slots.
    /// A crawler's thumbnails are asked for once, so they replace each other, not the hot set.
    case probation

    /// The share of the cache (bytes and entries after eviction) that probation keeps: W-TinyLFU's
    /// window, sized on bench/eviction's crawler traces (bench/EVICTION.md).
    static let probationPercent: UInt64 = 1
}
