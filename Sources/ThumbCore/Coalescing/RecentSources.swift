import Foundation

/// Originals fetched a moment ago, kept in memory up to a byte budget (least recently used out
/// first), so a page asking for several sizes of one photo fetches it once. A purge of the cache
/// (`thumbd cache purge`, another process) empties it, so a purged source is fetched again.
public actor RecentSources {
    private var entries: [String: FetchedSource] = [:]
    private var order: [String] = []
    private var bytes = 0
    private let byteLimit: Int
    private let purges: @Sendable () -> UInt64
    private var purgesSeen: UInt64 = 0

    /// - Parameter purges: how many purges the cache has seen.
    public init(byteLimit: Int, purges: @escaping @Sendable () -> UInt64 = { 0 }) {
        self.byteLimit = byteLimit
        self.purges = purges
    }

    public func source(for url: String) -> FetchedSource? {
        let purged = purges()
        if purged != purgesSeen {
            purgesSeen = purged
            entries = [:]
            order = []
            bytes = 0
        }
        guard let source = entries[url] else { return nil }
        order.removeAll { $0 == url }
        order.append(url)
        return source
    }

    public func keep(_ source: FetchedSource, for url: String) {
        guard source.bytes.count <= byteLimit / 4, entries[url] == nil else { return }
        entries[url] = source
        order.append(url)
        bytes += source.bytes.count
        while bytes > byteLimit, let oldest = order.first {
            order.removeFirst()
            bytes -= entries.removeValue(forKey: oldest)?.bytes.count ?? 0
        }
    }
}

/// A source's bytes and the format its first bytes show.
public struct FetchedSource: Sendable {
    public let bytes: [UInt8]
    public let format: SourceFormat
}
