import Foundation
import Synchronization
import ThumbImaging

/// Originals fetched a moment ago, kept in memory up to a byte budget (least recently used out
/// first) and for a few seconds, so a page asking for several sizes of one photo fetches it
/// once, and an idle thumbd holds no originals. A purge of the cache (`thumbd cache purge`,
/// another process) empties it, so a purged source is fetched again.
public final class RecentSources: Sendable {
    private struct Kept {
        let source: FetchedSource
        let at: ContinuousClock.Instant
    }

    /// Kept under a lock held for a dictionary lookup, not in an actor: a job asks without
    /// hopping, and a scrape reads `heldBytes` from its own thread.
    private struct Memory {
        var entries: [String: Kept] = [:]
        var order: [String] = []
        var bytes = 0
        var purgesSeen: UInt64 = 0

        mutating func remove(_ url: String) {
            order.removeAll { $0 == url }
            bytes -= entries.removeValue(forKey: url)?.source.bytes.count ?? 0
        }
    }

    private let memory = Mutex(Memory())
    private let byteLimit: Int
    private let lifetime: Duration
    private let purges: @Sendable () -> UInt64
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
        let (purged, time) = (purges(), now())
        return memory.withLock { memory in
            if purged != memory.purgesSeen {
                memory = Memory(purgesSeen: purged)
            }
            guard let kept = memory.entries[url] else { return nil }
            guard time - kept.at < lifetime else {
                memory.remove(url)  // so that the fetch this miss starts can keep its source
                return nil
            }
            memory.order.removeAll { $0 == url }
            memory.order.append(url)
            return kept.source
        }
    }

    public func keep(_ source: FetchedSource, for url: String) {
        guard source.bytes.count <= byteLimit / 4 else { return }
        let time = now()
        memory.withLock { memory in
            guard memory.entries[url] == nil else { return }
            memory.entries[url] = Kept(source: source, at: time)
            memory.order.append(url)
            memory.bytes += source.bytes.count
            while memory.bytes > byteLimit, let oldest = memory.order.first {
                memory.remove(oldest)
            }
        }
    }

    /// Lets go of every original kept longer than the lifetime; what thumbd holds when idle.
    public func dropExpired() {
        let time = now()
        memory.withLock { memory in
            for (url, kept) in memory.entries where time - kept.at >= lifetime {
                memory.remove(url)
            }
        }
    }

    /// Drops expired originals every half lifetime, until the task is cancelled.
    public func expireForever() async {
        while (try? await Task.sleep(for: lifetime / 2)) != nil {
            dropExpired()
        }
    }

    /// Originals held now, in bytes.
    public var heldBytes: Int { memory.withLock { $0.bytes } }
}

/// A source's bytes and the format its first bytes show.
public struct FetchedSource: Sendable {
    public let bytes: [UInt8]
    public let format: SourceFormat
}
