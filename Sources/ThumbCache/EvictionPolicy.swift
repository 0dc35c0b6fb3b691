/// Which keys eviction takes first. nginx reports every hit, so the index knows of each file
/// whether it was served again after it was stored (its last use is later than its creation);
/// a sketch beside it counts how often each key was asked for, evicted keys included.
public enum EvictionPolicy: String, Sendable, CaseIterable {
    /// Least recently used first, whatever a thumbnail's history: one crawler's pass over more
    /// thumbnails than the cache holds flushes everything people look at (nginx's proxy_cache does
    /// the same).
    case lru
    /// S3-FIFO's split (SOSP 2023), kept with the index's last-use times: a thumbnail nobody asked
    /// for again since it was stored is on probation, and probation may keep a hundredth of the cache.
    /// Past that, each of the oldest on probation meets one of the least recently used of the rest,
    /// and of the two the one asked for less often lately goes (W-TinyLFU's admission, counted in
    /// FrequencySketch, misses of keys long evicted included); the other stays, off probation. A
    /// crawler's thumbnails are asked for once, so they replace each other, not the hot set.
    case probation

    /// The share of the cache (bytes and entries after eviction) that probation keeps: W-TinyLFU's
    /// window; 1 % missed fewest of 1, 5 and 10 % on bench/eviction's crawler traces.
    static let probationPercent: UInt64 = 1
}
