import Synchronization
import ThumbRequest
import ThumbRuntime

/// Where this process last stored the thumbnails of recent keys, so that another spelling of a
/// URL (options in another order, another signature) links to the file instead of rendering it
/// again. A memory, not the index: the index is hashed by path, and a key has several.
final class RecentlyStored: Sendable {
    private let paths: Mutex<RecentValues<ThumbnailKey, CachePath>>

    init(capacity: Int) {
        paths = Mutex(RecentValues(capacity: capacity))
    }

    subscript(key: ThumbnailKey) -> CachePath? { paths.withLock { $0[key] } }

    func keep(_ path: CachePath, for key: ThumbnailKey) {
        paths.withLock { $0.keep(path, for: key) }
    }
}
