import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif
import ThumbRuntime

/// nginx serves hits without thumbd, so it tells thumbd about them: it appends each hit's file
/// (`$request_filename`: the alias or root it was served from, then `/served/{c}/{name}`) to a log, buffered (`access_log PATH thumbd_hits buffer=64k
/// flush=1s`), which costs nginx one write per 64 KiB of hits. One thumbd on the host (whoever
/// holds the log's flock) reads what was appended, marks each file used in the shared index, and
/// empties the log once it has read it all. A hit appended between the last read and the
/// truncation (microseconds apart) is lost, as are hits in a buffer nginx had not flushed when it
/// was killed: last-use times are a hint, not a ledger.
///
/// Not Sendable: a reader and its buffers belong to one thread, the hits thread once started.
public final class HitLog {
    public let path: String
    private let index: CacheIndex
    private let logger: Logger
    private var fd: Int32 = -1
    private var offset = 0
    private var partial: [UInt8] = []
    /// True while the rest of an over-long line is skipped, up to its newline.
    private var skippingLine = false
    private var buffer = [UInt8](repeating: 0, count: 256 << 10)
    private var lineHashes = LineHashes()

    public init(path: String, index: CacheIndex, logger: Logger) {
        self.path = path
        self.index = index
        self.logger = logger
    }

    /// Makes the log if there is none, so nginx (often root) does not make one thumbd cannot empty.
    /// Where thumbd may not make it (the package's /var/log/thumbd is root's, so that nginx's
    /// master, which opens it as root, never follows a link thumbd put there), the package has.
    /// Nil, or why it cannot be made: hits are then not counted until it exists.
    public static func create(_ path: String) -> String? {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        close(fd)
        return nil
    }

    /// Reads the log at `path` on a thread of its own, every `interval` seconds, for the life of
    /// the process.
    public static func startReading(_ path: String, into index: CacheIndex, logger: Logger, interval: Double = 0.2) {
        OwnedThread.start(.hits) {
            System.runInBackground()
            let log = HitLog(path: path, index: index, logger: logger)
            while true {
                if !log.holdsLog() {
                    Thread.sleep(forTimeInterval: 2)
                    continue
                }
                if log.drain() == 0 { Thread.sleep(forTimeInterval: interval) }
            }
        }
    }

    /// Reads everything appended since the last call and records it; returns the hits read.
    @discardableResult
    public func drain() -> Int {
        guard holdsLog() else { return 0 }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return 0 }
        if Int(info.st_size) < offset {
            // Emptied by another reader or by hand: start again from the top.
            offset = 0
            partial = []
            skippingLine = false
        }
        var hits = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
            guard count > 0 else { break }
            offset += count
            hits += record(buffer[..<count])
        }
        // Emptied as soon as all of it was read, so no hit is read twice and the log stays small.
        // What nginx appends next goes on from the line it was writing, kept in `partial`.
        if offset > 0, fstat(fd, &info) == 0, Int(info.st_size) == offset, ftruncate(fd, 0) == 0 {
            offset = 0
        }
        if hits > 0 { index.countHits(hits) }
        return hits
    }

    /// Takes the reader's flock on the log (again, if the file was replaced, e.g. rotated).
    private func holdsLog() -> Bool {
        if fd >= 0 {
            var mine = stat()
            var named = stat()
            if fstat(fd, &mine) == 0, stat(path, &named) == 0, mine.st_ino == named.st_ino, mine.st_dev == named.st_dev {
                return true
            }
            close(fd)
            fd = -1
        }
        var opened = open(path, O_RDWR | O_CLOEXEC)
        let writable = opened >= 0
        if !writable { opened = open(path, O_RDONLY | O_CLOEXEC) }
        guard opened >= 0 else { return false }
        guard flock(opened, LOCK_EX | LOCK_NB) == 0 else {
            close(opened)
            return false
        }
        fd = opened
        offset = 0
        partial = []
        skippingLine = false
        index.resetHitCount()
        logger.info("reading nginx's hits", metadata: ["log": "\(path)"])
        if !writable {
            // nginx made it (root, 0644) before thumbd could, or its owner or mode were changed.
            logger.warning("""
                thumbd can read the hits log but not empty it, so it grows with every hit: make it writable by \
                thumbd's group (the package's is www-data:thumbd 0660)
                """, metadata: ["log": "\(path)"])
        }
        return true
    }

    /// The longest line read: a file's path, which the kernel takes up to PATH_MAX bytes. A longer
    /// one names no file nginx served; kept whole, a line without a newline (the log is writable
    /// by thumbd's group) would grow thumbd's buffer without bound.
    static let maximumLineBytes = Int(PATH_MAX)

    /// One file a line, as nginx wrote it (`escape=none`: escaping costs nginx a pass over every
    /// byte); its last three segments are the path the index knows it by, whatever nginx's spelling
    /// of the cache root. A line over `maximumLineBytes` is dropped up to its newline.
    private func record(_ chunk: ArraySlice<UInt8>) -> Int {
        var hits = 0
        let now = Clock.milliseconds()
        chunk.withUnsafeBytes { bytes in
            let newline = Int32(UInt8(ascii: "\n"))
            var start = 0
            while start < bytes.count, let found = memchr(bytes.baseAddress! + start, newline, bytes.count - start) {
                let end = bytes.baseAddress!.distance(to: found)
                let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
                start = end + 1
                if skippingLine || partial.count + line.count > Self.maximumLineBytes {
                    skippingLine = false
                    partial = []
                    continue
                }
                if partial.isEmpty {
                    index.touch(hash: lineHashes.hash(of: Self.indexPath(line)), at: now)
                } else {
                    partial += line
                    let hash = partial.withUnsafeBytes { lineHashes.hash(of: Self.indexPath($0)) }
                    index.touch(hash: hash, at: now)
                    partial = []
                }
                hits += 1
            }
            let rest = bytes[start...]
            if skippingLine || partial.count + rest.count > Self.maximumLineBytes {
                skippingLine = true
                partial = []
            } else {
                partial += rest
            }
        }
        return hits
    }

    /// Bytes of a line still waiting for its newline.
    var pendingLineBytes: Int { partial.count }

    /// From the third slash from the end: `/served/{c}/{name}`.
    static func indexPath(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var start = line.count
        for _ in 0..<3 {
            guard let slash = line[..<start].lastIndex(of: UInt8(ascii: "/")) else { return line }
            start = slash
        }
        return UnsafeRawBufferPointer(rebasing: line[start...])
    }
}
