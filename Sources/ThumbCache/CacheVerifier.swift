#if canImport(Glibc)
import Glibc
#endif
import ThumbRuntime

/// The index against the disk: files the index counts that are gone, files on disk it does not
/// know, sizes that differ, and temp files left behind. Safe beside a serving thumbd: the disk is
/// walked first and the index read after, so a file published meanwhile already has its entry,
/// and every difference is looked at once more before it is reported.
public struct CacheVerifier: Sendable {
    let index: CacheIndex
    private var files: any CacheDisk { index.files }

    public init(index: CacheIndex) {
        self.index = index
    }

    public struct Report: Sendable {
        public var missing: [String] = []
        public var unknown: [String] = []
        public var sizeMismatches: [(path: String, indexed: UInt64, onDisk: UInt64)] = []
        public var tempFiles: [String] = []
        /// Files outside the layout (CachePath), which the index never counts; a serving thumbd's
        /// start-up scan removes those an older thumbd stored (OldLayout).
        public var outsideLayout: [String] = []
        public var files = 0
        public var entries = 0
        /// The header's total against the sum of the entries.
        public var totalMismatch = false
        /// Bytes the settled entries count, and bytes their files hold on disk (each file once).
        public var diskBytes: UInt64 = 0
        public var indexBytes: UInt64 = 0

        public var isConsistent: Bool {
            missing.isEmpty && unknown.isEmpty && sizeMismatches.isEmpty && tempFiles.isEmpty && !totalMismatch
                && indexBytes == diskBytes
        }
    }

    public func verify() throws(CacheFailure) -> Report {
        var report = Report()
        var disk: [String: stat] = [:]
        DirectoryWalk.files(under: index.root) { path, info in
            if FileSystem.tempWriter(path[path.index(after: path.lastIndex(of: "/")!)...]) != nil {
                report.tempFiles.append(path)
            } else if CacheFiles.isWellFormed(path) {
                disk[path] = info
            } else {
                report.outsideLayout.append(path)
            }
        }
        report.files = disk.count
        let entries = try index.entries()
        report.entries = entries.count
        let header = index.usage.bytes
        report.totalMismatch = header != entries.reduce(0) { $0 &+ $1.bytes }
        var known = Set<String>()
        var inodes = Set<IndexMapping.FileIdentity>()
        for entry in entries {
            known.insert(entry.path)
            guard entry.isSettled else { continue }
            report.indexBytes &+= entry.bytes
            if let info = disk[entry.path], inodes.insert(IndexMapping.FileIdentity(info)).inserted {
                report.diskBytes += CacheFiles.allocatedBytes(info)
            }
            guard let info = disk[entry.path] ?? files.info(entry.path) else {
                if files.info(entry.path) == nil { report.missing.append(entry.path) }
                continue
            }
            if !entry.isLink, entry.bytes != CacheFiles.allocatedBytes(info), let now = files.info(entry.path),
               entry.bytes != CacheFiles.allocatedBytes(now) {
                report.sizeMismatches.append((entry.path, entry.bytes, CacheFiles.allocatedBytes(now)))
            }
        }
        report.unknown = disk.keys.filter { !known.contains($0) && files.info($0) != nil }.sorted()
        report.tempFiles = report.tempFiles.filter { FileSystem.isRegularFile(index.root + $0) }
        report.missing.sort()
        report.outsideLayout.sort()
        return report
    }

    /// Makes the index agree with the disk: entries of missing files go, unknown files are
    /// counted (grouped by what their attributes say), sizes are read again, temp files of dead
    /// writers are removed.
    public func repair(_ report: Report) throws(CacheFailure) {
        let missing = Set(report.missing)
        if !missing.isEmpty { try index.remove { missing.contains($0.path) } }
        var adoption = CacheScan.Adoption()
        try index.adopt(report.unknown.compactMap { path in
            files.info(path).map { adoption.record(path, $0, root: index.root) }
        })
        try index.resettle(report.sizeMismatches.map(\.path), recount: report.totalMismatch)
        for path in report.tempFiles {
            let name = path[path.index(after: path.lastIndex(of: "/")!)...]
            if let writer = FileSystem.tempWriter(name), !CacheIndex.isAlive(UInt32(bitPattern: writer)) {
                unlink(index.root + path)
            }
        }
    }
}
