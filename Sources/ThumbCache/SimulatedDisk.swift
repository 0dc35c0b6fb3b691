import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A disk whose files are only sizes, for a replayed trace: the index stores, settles and evicts
/// as it does on the cache directory, and no file is written. A file takes its size rounded up to
/// 512-byte blocks, which is how `CacheFiles` counts what a file takes.
final class SimulatedDisk: CacheDisk {
    private let sizes = Mutex<[String: UInt64]>([:])

    func create(_ path: String, bytes: UInt64) {
        sizes.withLock { $0[path] = bytes }
    }

    func info(_ path: String) -> stat? {
        guard let bytes = sizes.withLock({ $0[path] }) else { return nil }
        var info = stat()
        info.st_mode = S_IFREG | 0o644
        info.st_nlink = 1
        info.st_size = off_t(bytes)
        info.st_blocks = blkcnt_t((bytes + 511) / 512)
        return info
    }

    func remove(_ path: String) -> Bool {
        sizes.withLock { _ = $0.removeValue(forKey: path) }
        return true
    }

    func directoryBytes() -> UInt64 { 0 }
}
