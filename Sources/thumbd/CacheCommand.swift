import ArgumentParser
import Foundation
import ThumbCache
import ThumbRuntime

/// `thumbd cache ...`: the operator's view of a live cache, beside a running thumbd.
struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect, purge and verify the cache (safe while thumbd serves).",
        subcommands: [CacheStatsCommand.self, CachePurgeCommand.self, CacheVerifyCommand.self, CacheReplayCommand.self]
    )
}

/// Which cache: the settings' flags `cache stats`, `purge` and `verify` take (SettingFlags), every
/// other setting from the environment and the settings file as thumbd reads them.
enum CacheLocation {
    /// The Debian package's settings file, which names its cache: read when no other file is named,
    /// so that the commands find the package's cache as its thumbd does.
    static let packageSettingsFile = "/etc/thumbd/thumbd.env"

    /// The flags `command` (`cache stats`) takes, for its `--help`.
    static func help(for command: String) -> String {
        "Without --config or THUMBD_CONFIG, the settings file is \(packageSettingsFile), when there is one.\n\n"
            + SettingFlags.help(for: command)
    }

    static func configuration() throws -> Settings {
        var flags = SettingFlags.given
        if SettingSources(flags: flags).filePath == nil,
           FileManager.default.fileExists(atPath: Self.packageSettingsFile) {
            flags["CONFIG"] = Self.packageSettingsFile
        }
        return try Settings.commandLine(flags: flags)
    }

    /// The index the configured thumbd uses; an error that says how to get one when there is none.
    /// Run as root, the command first becomes the cache root's owner: the index and the paths in
    /// it are that user's writing, so nothing they say may be done with more rights than theirs.
    static func openIndex(_ configuration: Settings) throws -> CacheIndex {
        do throws(SystemFailure) {
            try System.becomeOwner(of: configuration.cacheRoot)
        } catch {
            switch error {
            case .internalFailure(let why): StandardError.write("thumbd cache: \(why)\n")
            }
            throw ExitCode(2)
        }
        let path = configuration.cache.indexPath(root: configuration.cacheRoot)
        guard let index = try CacheIndex(existingAt: path, root: configuration.cacheRoot) else {
            throw ValidationError(
                "no cache index at \(path): thumbd makes it when it starts (--config, --cache-root, --cache-index)")
        }
        return index
    }
}

struct CacheStatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Entries, bytes, bounds, hits and evictions.",
        discussion: CacheLocation.help(for: "cache stats")
    )

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        let configuration = try CacheLocation.configuration()
        let index = try CacheLocation.openIndex(configuration)
        let usage = index.usage
        let entries = try index.entries()
        let oldest = entries.min { $0.created < $1.created }
        let newest = entries.max { $0.created < $1.created }
        if json {
            var object: [String: Any] = [
                "index": index.path, "index_file_bytes": usage.fileSize, "entries": usage.entries,
                "capacity": usage.capacity, "bytes": usage.bytes, "directory_bytes": usage.directoryBytes,
                "disk_bytes": usage.diskBytes, "max_bytes": usage.maxBytes,
                "max_entries": usage.maxEntries, "hits_reported": usage.hitsReported,
                "hits_since": Self.date(usage.hitsSince), "keys_evicted": usage.keysEvicted,
                "bytes_evicted": usage.bytesEvicted, "scanning": usage.scanning,
            ]
            if let oldest { object["oldest"] = ["path": oldest.path, "created": Self.date(oldest.created)] }
            if let newest { object["newest"] = ["path": newest.path, "created": Self.date(newest.created)] }
            let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        print("entries   \(usage.entries) of \(usage.maxEntries)\(Self.percent(UInt64(usage.entries), of: UInt64(usage.maxEntries)))")
        print("disk      \(usage.diskBytes) of \(usage.maxBytes)\(Self.percent(usage.diskBytes, of: usage.maxBytes)): "
            + "files \(usage.bytes), directories \(usage.directoryBytes), index \(usage.fileSize)")
        if let oldest, let newest {
            print("oldest    \(Self.date(oldest.created)) \(oldest.path)")
            print("newest    \(Self.date(newest.created)) \(newest.path)")
        }
        print("hits      \(usage.hitsReported) reported by nginx since \(Self.date(usage.hitsSince))")
        print("evicted   \(usage.keysEvicted) keys, \(usage.bytesEvicted) bytes")
        print("index     \(index.path): \(usage.fileSize) bytes, room for \(usage.capacity) entries\(usage.scanning ? ", being filled by a scan" : "")")
    }

    static func date(_ milliseconds: UInt64) -> String {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(.iso8601)
    }

    static func percent(_ value: UInt64, of total: UInt64) -> String {
        total == 0 ? "" : String(format: " (%.1f %%)", Double(value) * 100 / Double(total))
    }
}

struct CachePurgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge",
        abstract: "Remove thumbnails: of one source, one URL, one key, or all. nginx then misses them.",
        discussion: "Example: thumbd cache purge --source https://origin.example.com/cat.jpg\n\n"
            + CacheLocation.help(for: "cache purge")
    )

    @Option(help: "Every thumbnail of this source URL, whatever its options and formats.")
    var source: String?

    @Option(help: "One thumbnail: its URL or path (signed), in every format and spelling.")
    var url: String?

    @Option(help: "One thumbnail by the key thumbd logs on its miss line.")
    var key: String?

    @Flag(help: "Everything.")
    var all = false

    func validate() throws {
        guard [source != nil, url != nil, key != nil, all].filter({ $0 }).count == 1 else {
            throw ValidationError("give one of --source, --url, --key or --all")
        }
    }

    func run() throws {
        let configuration = try CacheLocation.configuration()
        let purge = CachePurge(index: try CacheLocation.openIndex(configuration), parser: configuration.requestPathParser)
        let removed: CachePurge.Removed
        if let source {
            removed = try purge.source(source)
        } else if let url {
            removed = try purge.url(url)
        } else if let key {
            removed = try purge.key(key)
        } else {
            removed = try purge.all()
        }
        print("purged \(removed.files) files, \(removed.bytes) bytes")
    }
}

struct CacheVerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Compare the index with the disk; exit 1 on any difference.",
        discussion: CacheLocation.help(for: "cache verify")
    )

    @Flag(help: "Make the index agree with the disk (and remove temp files dead processes left).")
    var repair = false

    func run() throws {
        let configuration = try CacheLocation.configuration()
        let index = try CacheLocation.openIndex(configuration)
        let verifier = CacheVerifier(index: index)
        let report = try verifier.verify()
        print("entries \(report.entries), files \(report.files), bytes in index \(report.indexBytes), bytes on disk \(report.diskBytes)")
        Self.list("missing files (in the index, not on disk)", report.missing)
        Self.list("unknown files (on disk, not in the index)", report.unknown)
        Self.list("size mismatches", report.sizeMismatches.map { "\($0.path): index \($0.indexed), disk \($0.onDisk)" })
        Self.list("temp files", report.tempFiles)
        if report.totalMismatch { print("the index's total differs from the sum of its entries") }
        if report.isConsistent {
            print("consistent")
            return
        }
        guard repair else { throw ExitCode(1) }
        try verifier.repair(report)
        let after = try verifier.verify()
        print(after.isConsistent ? "repaired: consistent" : "still inconsistent after repair")
        if !after.isConsistent { throw ExitCode(1) }
    }

    /// Names read from disk or from the index, printed escaped: a name may hold terminal escapes.
    static func list(_ title: String, _ items: [String]) {
        print("\(title): \(items.count)")
        for item in items.prefix(20) { print("  \(PrintableText.escaping(item))") }
        if items.count > 20 { print("  ... and \(items.count - 20) more") }
    }
}

struct CacheReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a trace of requests through the cache's index and eviction; print the miss ratios.",
        discussion: """
            TRACE has one request a line, `KEY SIZE` (a key without spaces, a size in bytes). A key the \
            cache holds is a hit, recorded as nginx's reported hits are; any other is stored, and the \
            cache evicted past --bytes, by thumbd's own index code, in a scratch index: no file is \
            written, nothing fetched or rendered. Prints `object miss ratio R` and `byte miss ratio R`; \
            progress goes to stderr.

            --bytes, --policy and --low-water describe the cache simulated, to compare policies and \
            bounds: they are not thumbd's settings, and no setting is read from the environment or a \
            settings file.
            """
    )

    @Argument(help: "The trace file.")
    var trace: String

    @Option(help: "The bound: bytes of thumbnails the cache keeps.")
    var bytes: UInt64

    @Option(help: "The eviction policy simulated: probation or lru, as CACHE_EVICTION_POLICY names them.")
    var policy = CacheSettings().evictionPolicy.rawValue

    @Option(help: "Percent of the bound eviction brings the simulated cache down to, as CACHE_LOW_WATER does.")
    var lowWater = CacheSettings().lowWaterPercent

    @Option(help: "A file of keys, one a line: how many of them are still stored at the end goes to stderr.")
    var kept: String?

    func validate() throws {
        guard EvictionPolicy(rawValue: policy) != nil else { throw ValidationError("--policy: probation or lru") }
        guard (1...99).contains(lowWater) else { throw ValidationError("--low-water: 1 to 99") }
        guard bytes > 0 else { throw ValidationError("--bytes: more than 0") }
    }

    func run() throws {
        let requests = try TraceReplay.parse(String(contentsOfFile: trace, encoding: .utf8))
        let keys = try kept.map { try String(contentsOfFile: $0, encoding: .utf8).split(whereSeparator: \.isWhitespace) } ?? []
        var template = Array((NSTemporaryDirectory() + "/thumbd-replay-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw ValidationError("cannot make a scratch directory") }
        let directory = String(cString: made)
        defer {
            do {
                try FileManager.default.removeItem(atPath: directory)
            } catch {
                StandardError.write("thumbd cache replay: cannot remove \(directory): \(error)\n")
            }
        }
        let replay = TraceReplay(maxBytes: bytes, lowWaterPercent: lowWater, policy: EvictionPolicy(rawValue: policy)!)
        let total = requests.count
        let result = try replay.run(requests, directory: directory, kept: keys) { done in
            StandardError.write("replayed \(done) of \(total) requests\n")
        }
        if kept != nil { StandardError.write("kept \(result.kept) of \(keys.count) listed keys\n") }
        print(String(format: "object miss ratio %.4f", result.objectMissRatio))
        print(String(format: "byte miss ratio %.4f", result.byteMissRatio))
    }
}
