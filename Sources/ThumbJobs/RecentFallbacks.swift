import Synchronization
import ThumbRequest

/// Fallback images rendered a moment ago, by thumbnail key, each kept for the fallback's lifetime
/// (`FALLBACK_IMAGE_TTL`) and answered from here. Rendered once a request, one public broken URL
/// kept the render pool busy, and real misses got 503. Kept in memory only, never where nginx
/// serves files: once the lifetime has passed, the next request asks the source again, and the
/// real thumbnail is made and stored when the origin has it.
final class RecentFallbacks: Sendable {
    private struct Kept {
        var thumbnails: [ThumbnailKey: Thumbnail] = [:]
        /// Oldest first. One lifetime for all: the order they were kept in is the order they expire in.
        var order: [(key: ThumbnailKey, until: ContinuousClock.Instant)] = []
        var bytes = 0

        /// Drops the oldest while they have expired or the bytes are over `limit`.
        mutating func trim(now: ContinuousClock.Instant, limit: Int) {
            var count = 0
            while count < order.count, order[count].until <= now || bytes > limit {
                bytes -= thumbnails.removeValue(forKey: order[count].key)?.bytes.count ?? 0
                count += 1
            }
            order.removeFirst(count)
        }
    }

    private let kept = Mutex(Kept())
    private let lifetime: Duration
    private let byteLimit: Int

    /// - Parameter lifetime: zero keeps none.
    /// - Parameter byteLimit: past it the oldest go first; a large rendition of a cheap fallback
    ///   must not hold memory a real source needs.
    init(lifetime: Duration, byteLimit: Int = 16 << 20) {
        self.lifetime = lifetime
        self.byteLimit = byteLimit
    }

    func thumbnail(for key: ThumbnailKey) -> Thumbnail? {
        let now = ContinuousClock.now
        return kept.withLock { kept in
            kept.trim(now: now, limit: byteLimit)
            return kept.thumbnails[key]
        }
    }

    func keep(_ thumbnail: Thumbnail, for key: ThumbnailKey) {
        guard lifetime > .zero, thumbnail.bytes.count <= byteLimit / 4 else { return }
        let now = ContinuousClock.now
        kept.withLock { kept in
            guard kept.thumbnails[key] == nil else { return }
            kept.thumbnails[key] = thumbnail
            kept.order.append((key, now + lifetime))
            kept.bytes += thumbnail.bytes.count
            kept.trim(now: now, limit: byteLimit)
        }
    }
}
