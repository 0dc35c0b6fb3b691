import Dispatch
import Logging
#if canImport(Glibc)
import Glibc
#endif
import ThumbRuntime

/// The start-up walk of the cache directory, nginx's cache loader in thumbd's terms: it removes
/// temp files that dead processes left (a kill -9 while writing) and what an older thumbd stored
/// outside today's layout (OldLayout), and when the index was made anew, counts every thumbnail
/// on disk into it, in batches, while thumbd already serves. The bound waits until the walk is
/// over, since until then the index knows only part of the disk.
public struct CacheScan: Sendable {
    let index: CacheIndex
    let oldLayout: OldLayout
    let logger: Logger

    public init(index: CacheIndex, oldLayout: OldLayout, logger: Logger) {
        self.index = index
        self.oldLayout = oldLayout
        self.logger = logger
    }

    public struct Outcome: Sendable {
        public var files = 0
        public var bytes: UInt64 = 0
        public var tempFilesRemoved = 0
        public var oldLayoutFilesRemoved = 0
        /// Files outside the layout that are no thumbnail thumbd made: left alone, and logged.
        public var unknownFiles = 0
    }

    /// Walks the directory; with `fill`, adopts every file the index does not know.
    @discardableResult
    public func run(fill: Bool) throws(CacheFailure) -> Outcome {
        let started = DispatchTime.now()
        _ = Self.processStartedAt  // set by the first scan, which runs at start
        if fill { try index.setScanning(true) }
        var outcome = Outcome()
        var batch: [CacheIndex.Record] = []
        var adoption = Adoption()
        var failure: CacheFailure?
        let directories = DirectoryWalk.files(under: index.root) { path, info in
            let name = path[path.index(after: path.lastIndex(of: "/")!)...]
            if let writer = FileSystem.tempWriter(name) {
                if Self.isLeftOver(writer: writer, modified: info.st_mtim.tv_sec), unlink(index.root + path) == 0 {
                    outcome.tempFilesRemoved += 1
                }
                return
            }
            guard CacheFiles.isWellFormed(path) else {
                if oldLayout.stored(path), unlink(index.root + path) == 0 {
                    outcome.oldLayoutFilesRemoved += 1
                } else {
                    outcome.unknownFiles += 1
                }
                return
            }
            guard fill, failure == nil else { return }
            let record = adoption.record(path, info, root: index.root)
            batch.append(record)
            outcome.files += 1
            outcome.bytes += record.bytes
            if batch.count >= 256 {
                do throws(CacheFailure) { try index.adopt(batch) } catch { failure = error }
                batch = []
            }
        }
        // The old layout's directories, deepest first; rmdir leaves any that still hold something.
        for directory in directories.reversed() where !directory.isEmpty && !Self.isInLayout(directory) {
            rmdir(index.root + directory)
        }
        if fill {
            if failure == nil {
                do throws(CacheFailure) { try index.adopt(batch) } catch { failure = error }
            }
            // The bound waits for the scan; a scan cut short (the index is full) lets eviction
            // make room and asks to be run again, which adopts what is still uncounted.
            try index.setScanning(false)
            if failure != nil { index.requestScan() }
        }
        if let failure { throw failure }
        if outcome.unknownFiles > 0 {
            logger.warning("files in the cache root that thumbd did not make; left alone, not counted", metadata: [
                "files": "\(outcome.unknownFiles)", "root": "\(index.root)",
            ])
        }
        logger.info("cache scanned", metadata: [
            "files": "\(outcome.files)", "bytes": "\(outcome.bytes)", "temp_files_removed": "\(outcome.tempFilesRemoved)",
            "old_layout_files_removed": "\(outcome.oldLayoutFilesRemoved)",
            "filled_index": "\(fill)", "ms": "\(DispatchTime.now().milliseconds(since: started))",
        ])
        return outcome
    }

    /// `/served`, `/private` and their fan-out directories.
    static func isInLayout(_ directory: String) -> Bool {
        let segments = directory.split(separator: "/", omittingEmptySubsequences: false)
        return (2...3).contains(segments.count)
            && (segments[1] == CachePath.servedDirectory || segments[1] == CachePath.privateDirectory)
            && (segments.count == 2 || segments[2].count == 1)
    }

    /// When this process began, as near as matters: the first scan runs at start. A later scan
    /// (after a rebuild) must not take this process's own files being written for an earlier one's.
    private static let processStartedAt = time(nil)

    /// A temp file whose writer is gone, or that an earlier process with this process's pid left
    /// (a container's thumbd often has the same pid every time).
    static func isLeftOver(writer: Int32, modified: Int) -> Bool {
        writer == getpid() ? modified < processStartedAt - 1 : !CacheIndex.isAlive(UInt32(bitPattern: writer))
    }

    /// Entries for files found on disk: their key and source read back from the file's attribute
    /// (StoredFileIdentity), and hard links to one file grouped under the key of the first one
    /// seen, which alone counts the bytes.
    struct Adoption {
        private var firstLinks: [IndexMapping.FileIdentity: UInt64] = [:]

        mutating func record(_ path: String, _ info: stat, root: String) -> CacheIndex.Record {
            let file = IndexMapping.FileIdentity(info)
            let identity = StoredFileIdentity.read(root + path)
            var keyHash = identity?.keyHash ?? FNV1a.hash64("\(file.device):\(file.inode)")
            var isLink = false
            if info.st_nlink > 1 {
                if let first = firstLinks[file] {
                    keyHash = first
                    isLink = true
                } else {
                    firstLinks[file] = keyHash
                }
            }
            return CacheIndex.Record(path: path, keyHash: keyHash, sourceHash: identity?.sourceHash ?? 0,
                                     bytes: Int(CacheFiles.allocatedBytes(info)), isLink: isLink)
        }
    }
}
