#if canImport(Glibc)
import Glibc
#endif

/// What the index asks of the files it counts: whether one is there and how big, removing one,
/// and what the directories take. `CacheFiles` is the cache directory; `SimulatedDisk` stands in
/// for it when a trace is replayed, so the replay runs the index's own store and eviction code.
protocol CacheDisk: Sendable {
    /// The lstat of the regular file at `path`; nil when there is none.
    func info(_ path: String) -> stat?
    /// True when no file is at `path` any more.
    @discardableResult
    func remove(_ path: String) -> Bool
    func directoryBytes() -> UInt64
}

extension CacheFiles: CacheDisk {}
