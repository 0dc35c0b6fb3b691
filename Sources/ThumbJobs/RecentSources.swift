import Foundation
import ThumbImaging

/// Originals fetched a moment ago, kept in memory up to a byte budget (least recently used out
/// first) and for a few seconds, so a page asking for several sizes of one photo fetches it
/// once, and an idle thumbd holds no originals. A purge of the cache (`thumbd cache purge`,
/// another process) empties it, so a purged source is fetched again.
public actor RecentSources {
    private struct Kept {
        let source: FetchedSource
        let at: ContinuousClock.Instant
    }

    private var entries: [String: Kept] = [:]
    private var order: [String] = []
    private var bytes = 0
    private let byteLimit: Int
    private let lifetime: Duration
    private let purges: @Sendable () -> UInt64
    private var purgesSeen: UInt64 = 0
    private let now: @Sendable () -> ContinuousClock.Instant

    /// - Parameter lifetime: how long an original is kept after its fetch.
    /// - Parameter purges: how many purges the cache has seen.
    /// - Parameter now: the time, which a test moves on by hand.
    public init(byteLimit: Int, lifetime: Duration = .seconds(10), purges: @escaping @Sendable () -> UInt64 = { 0 },
                now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.byteLimit = byteLimit
        self.lifetime = lifetime
        self.purges = purges
        self.now = now
    }

    public func source(for url: String) -> FetchedSource? {
        let purged = purges()
        if purged != purgesSeen {
            purgesSeen = purged
            entries = [:]
            order = []
            bytes = 0
        }
        guard let kept = entries[url] else { return nil }
        guard now() - kept.at < lifetime else {
            remove(url)  // so that the fetch this miss starts can keep its source
            return nil
        }
        order.removeAll { $0 == url }
        order.append(url)
        return kept.source
    }

    public func keep(_ source: FetchedSource, for url: String) {
        guard source.bytes.count <= byteLimit / 4, entries[url] == nil else { return }
        entries[url] = Kept(source: source, at: now())
        order.append(url)
        bytes += source.bytes.count
        while bytes > byteLimit, let oldest = order.first {
            remove(oldest)
        }
    }

    /// Lets go of every original kept longer than the lifetime; what thumbd holds when idle.
    public func dropExpired() {
        let time = now()
        for (url, kept) in entries where time - kept.at >= lifetime {
            remove(url)
        }
    }

    /// Drops expired originals every half lifetime, until the task is cancelled.
    public func expireForever() async {
        while (try? await Task.sleep(for: lifetime / 2)) != nil {
            dropExpired()
        }
    }

    /// Originals held now, in bytes.
    public var heldBytes: Int { bytes }

    private func remove(_ url: String) {
        order.removeAll { $0 == url }
        bytes -= entries.removeValue(forKey: url)?.source.bytes.count ?? 0
    }
}

/// A source's bytes and the format its first bytes show.
public struct FetchedSource: Sendable {
    public let bytes: [UInt8]
    public let format: SourceFormat
}
