#if canImport(Glibc)
import Glibc
#endif
import ThumbRuntime

/// The cache's files as the index names them, looked at and removed beneath the root only. The
/// index is a file another process may have written (or an attacker, through a thumbd taken over),
/// and `thumbd cache` may run as root: so a path from it is used only when it has the very shape
/// CachePath gives (`/served/{c}/{name}` or `/private/{c}/{name}`: no dot segment, no NUL, no
/// slash in the name), and is reached one directory at a time without following a link.
struct CacheFiles: Sendable {
    let root: String

    /// Whether `path` is one CachePath could have made.
    static func isWellFormed(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard bytes.count <= IndexLayout.Slot.pathCapacity else { return false }
        let segments = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard segments.count == 4, segments[0].isEmpty,
              segments[1].elementsEqual(CachePath.servedDirectory.utf8) || segments[1].elementsEqual(CachePath.privateDirectory.utf8),
              segments[2].count == 1, segments[3].count >= 2, segments[3].first == segments[2].first,
              segments[3].first != UInt8(ascii: ".") else { return false }
        return segments[3].allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."): true
            default: false
            }
        }
    }

    /// The blocks a file takes on disk, which is what fills it (a 300-byte thumbnail takes 4 KiB).
    static func allocatedBytes(_ info: stat) -> UInt64 { UInt64(max(0, info.st_blocks)) * 512 }

    /// The lstat of the regular file at `path`; nil when there is none (or `path` is not well formed).
    func info(_ path: String) -> stat? {
        inDirectory(of: path) { directory, name in
            var info = stat()
            guard fstatat(directory.raw, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
            return info
        } ?? nil
    }

    /// Unlinks the file at `path`; a link there is removed, never followed. True when no file is
    /// there any more (removed now, or gone already).
    @discardableResult
    func remove(_ path: String) -> Bool {
        inDirectory(of: path) { directory, name in unlinkat(directory.raw, name, 0) == 0 || errno == ENOENT } ?? false
    }

    /// Runs `body` with the file's directory open (reached without following a link, openat2's
    /// RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS) and its name.
    private func inDirectory<T>(of path: String, _ body: (borrowing FileDescriptor, String) -> T) -> T? {
        guard Self.isWellFormed(path) else { return nil }
        let segments = path.split(separator: "/")
        let failure = { (code: Int32) in CacheFailure.internalFailure("\(path): \(String(cString: strerror(code)))") }
        let directory: FileDescriptor
        do throws(CacheFailure) {
            let top = try SymlinkFreeWalk.openRoot(root, failure: failure)
            directory = try SymlinkFreeWalk.openDirectory(Array(segments.dropLast()), beneath: top, failure: failure)
        } catch {
            return nil  // missing, or a link on the way: no file of the cache's there
        }
        return body(directory, String(segments[segments.count - 1]))
    }

    /// The blocks the cache's directories take: the root, the two trees and their fan-out. They
    /// count towards the bound like the files (a directory of many names grows, and ext4's never
    /// shrink).
    func directoryBytes() -> UInt64 {
        var total: UInt64 = 0
        var info = stat()
        if lstat(root, &info) == 0 { total += Self.allocatedBytes(info) }
        for tree in [CachePath.servedDirectory, CachePath.privateDirectory] {
            let top = root + "/" + tree
            guard lstat(top, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { continue }
            total += Self.allocatedBytes(info)
            guard let stream = opendir(top) else { continue }
            defer { closedir(stream) }
            while let entry = readdir(stream) {
                guard entry.pointee.d_type == UInt8(DT_DIR) else { continue }
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                if name != ".", name != "..", lstat(top + "/" + name, &info) == 0 { total += Self.allocatedBytes(info) }
            }
        }
        return total
    }
}
