import Foundation
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import ThumbRuntime

/// Feeds a trace of requests through the cache's own code, with no files and no renders, to
/// measure eviction policies: a key the index holds is a hit, recorded as the hits log records
/// one (`touch`); any other is a miss, stored as a rendered thumbnail is (`store`, on a disk of
/// sizes only), and a store that takes the cache past its bound runs the evictor at once, as it
/// wakes thumbd's upkeep. Time is one tick per request, so a trace replays the same however fast.
///
/// The bound is the thumbnails' bytes (the scratch index is not counted); eviction takes the
/// cache down to `lowWaterPercent` of it, as thumbd's does.
public struct TraceReplay {
    public struct Request: Sendable {
        public let key: Substring
        public let bytes: UInt64
    }

    public struct Result: Sendable, Equatable {
        public var requests = 0
        public var misses = 0
        public var bytes: UInt64 = 0
        public var missedBytes: UInt64 = 0
        /// Of the keys asked about (`kept`), how many the cache holds at the end.
        public var kept = 0

        public var objectMissRatio: Double { requests == 0 ? 0 : Double(misses) / Double(requests) }
        public var byteMissRatio: Double { bytes == 0 ? 0 : Double(missedBytes) / Double(bytes) }
    }

    public let maxBytes: UInt64
    public let lowWaterPercent: Int
    public let policy: EvictionPolicy

    public init(maxBytes: UInt64, lowWaterPercent: Int = CacheSettings().lowWaterPercent, policy: EvictionPolicy) {
        self.maxBytes = maxBytes
        self.lowWaterPercent = lowWaterPercent
        self.policy = policy
    }

    /// The requests of a trace: one a line, `KEY SIZE`; blank lines are skipped.
    public static func parse(_ text: String) throws(CacheFailure) -> [Request] {
        var requests: [Request] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.isEmpty { continue }
            guard fields.count == 2, let bytes = UInt64(fields[1]) else {
                throw .internalFailure("trace line \(number + 1): want `KEY SIZE`, got `\(line.prefix(80))`")
            }
            requests.append(Request(key: fields[0], bytes: bytes))
        }
        return requests
    }

    /// Replays `requests` in a scratch index under `directory`, reporting progress every
    /// `progressEvery` requests; `kept` are keys to look for at the end.
    public func run(_ requests: [Request], directory: String, kept: [Substring] = [],
                    progress: (Int) -> Void = { _ in }, progressEvery: Int = 1_000_000) throws(CacheFailure) -> Result {
        let tick = Atomic<UInt64>(0)
        let disk = SimulatedDisk()
        let index = try CacheIndex(root: directory, path: directory + "/replay.index",
                                   maxEntries: Self.entries(requests, maxBytes: maxBytes), files: disk,
                                   clock: { tick.load(ordering: .relaxed) })
        try index.setScanning(false)
        var settings = CacheSettings()
        settings.maxBytes = maxBytes
        // Entries are not what a trace bounds: room for more than the bytes can hold.
        settings.maxEntries = index.current.layout.capacity
        settings.lowWaterPercent = lowWaterPercent
        settings.evictionPolicy = policy
        settings.countsIndexFile = false
        let evictor = Evictor(index: index, settings: settings, logger: Logger(label: "replay") { _ in SwiftLogNoOpLogHandler() })

        var result = Result()
        for request in requests {
            tick.add(1, ordering: .relaxed)
            let path = Self.path(request.key)
            result.requests += 1
            result.bytes &+= request.bytes
            defer { if result.requests % progressEvery == 0 { progress(result.requests) } }
            if index.touch(hash: FNV1a.hash64(path.utf8), at: tick.load(ordering: .relaxed)) { continue }
            result.misses += 1
            result.missedBytes &+= request.bytes
            let record = CacheIndex.Record(path: path, keyHash: Self.keyHash(request.key), sourceHash: 0,
                                           bytes: Int(clamping: request.bytes), isLink: false)
            try index.store(record) { () throws(CacheFailure) in disk.create(path, bytes: request.bytes) }
            if evictor.overrun != .within { try evictor.runOnce() }
        }
        let current = index.current
        result.kept = kept.count { current.findSlot(FNV1a.hash64(Self.path($0).utf8), matchingPath: nil) != nil }
        return result
    }

    /// Slots enough for every key the bound can hold, and for the distinct keys at most.
    static func entries(_ requests: [Request], maxBytes: UInt64) -> Int {
        var keys = Set<UInt64>()
        var smallest = UInt64.max
        for request in requests {
            keys.insert(keyHash(request.key))
            smallest = min(smallest, max(512, request.bytes))
        }
        let fitting = maxBytes / max(1, smallest) + 16
        return max(16, min(keys.count + 16, Int(clamping: fitting)))
    }

    static func keyHash(_ key: Substring) -> UInt64 { FNV1a.hash64(key.utf8) }

    /// A cache path for a trace's key, of the shape CachePath gives (`/served/{c}/{c}...`).
    static func path(_ key: Substring) -> String {
        let hex = String(keyHash(key), radix: 16)
        let name = String(repeating: "0", count: 16 - hex.count) + hex
        return "/served/\(name.prefix(1))/\(name)"
    }
}
