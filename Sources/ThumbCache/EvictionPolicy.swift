/// Which keys eviction takes first. nginx reports every hit, so the index knows of each file
/// whether it was served again after it was stored (its last use is later than its creation):
/// that one fact is what the scan-resistant policy needs, and hits cost nothing more than today.
public enum EvictionPolicy: String, Sendable, CaseIterable {
    /// Least recently used first, whatever a thumbnail's history: one crawler's pass over more
    /// thumbnails than the cache holds flushes everything people look at (nginx's proxy_cache does
    /// the same).
    case lru
    /// S3-FIFO's split (SOSP 2023), kept with the index's last-use times: a thumbnail nobody asked
    /// for again since it was stored is on probation, and probation may keep a tenth of the cache;
    /// past that, the oldest on probation go first, and only then the least recently used of the
    /// rest. A crawler's thumbnails are asked for once, so they replace each other, not the hot set.
    case probation

    /// The share of the cache (bytes and entries after eviction) that probation keeps.
    static let probationPercent: UInt64 = 10
}
