#if canImport(Glibc)
import Glibc
#endif

/// The system calls the cache makes, each retried on EINTR and failing with the path and errno.
package enum FileSystem {
    /// Names of files being written, followed by the writer's pid; never a thumbnail's name, which
    /// begins with a signature's or a digest's character.
    static let tempPrefix = ".thumbd-tmp-"

    /// The pid in a temp file's name, so a start-up scan removes only what dead processes left.
    package static func tempWriter(_ name: Substring) -> Int32? {
        guard name.hasPrefix(tempPrefix) else { return nil }
        return Int32(name.dropFirst(tempPrefix.count).prefix { $0 != "-" })
    }

    package static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    static func read(_ path: String) throws(SystemFailure) -> [UInt8] {
        guard let bytes = try readIfPresent(path) else {
            throw .internalFailure("open \(path): \(String(cString: strerror(ENOENT)))")
        }
        return bytes
    }

    /// nil when there is no file at `path` (evicted a moment ago).
    static func readIfPresent(_ path: String) throws(SystemFailure) -> [UInt8]? {
        var raw: Int32
        repeat {
            raw = open(path, O_RDONLY | O_CLOEXEC)
        } while raw < 0 && errno == EINTR
        if raw < 0 {
            if errno == ENOENT { return nil }
            throw failure("open \(path)")
        }
        let file = FileDescriptor(owning: raw)
        var info = stat()
        guard fstat(file.raw, &info) == 0 else { throw failure("stat \(path)") }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let count = try retrying("read \(path)") {
                bytes.withUnsafeMutableBytes { Glibc.read(file.raw, $0.baseAddress! + offset, $0.count - offset) }
            }
            guard count > 0 else { break }
            offset += count
        }
        return Array(bytes[..<offset])
    }

    /// Makes the directories between `root` (which exists) and the file at `path` below it.
    package static func createDirectories(forFile path: String, below root: String) throws(SystemFailure) {
        var directory = root
        for component in path.dropFirst(root.count).split(separator: "/").dropLast() {
            directory += "/" + component
            if mkdir(directory, 0o755) != 0 && errno != EEXIST {
                throw failure("mkdir \(directory)")
            }
        }
    }

    /// A temp file in the target's directory (so the rename stays on one file system),
    /// mode 0644: mkstemp makes 0600, which nginx's workers cannot read.
    package static func makeTempFile(besides target: String) throws(SystemFailure) -> TempFile {
        let directory = target[..<(target.lastIndex(of: "/") ?? target.startIndex)]
        var template = Array("\(directory)/\(tempPrefix)\(getpid())-XXXXXX".utf8CString)
        let raw = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard raw >= 0 else { throw failure("mkstemp in \(directory)") }
        let temp = TempFile(path: template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) },
                            file: FileDescriptor(owning: raw))
        guard fchmod(temp.file.raw, 0o644) == 0 else {
            unlink(temp.path)
            throw failure("chmod \(temp.path)")
        }
        return temp
    }

    package static func writeAll(_ bytes: [UInt8], to file: borrowing FileDescriptor) throws(SystemFailure) {
        var offset = 0
        while offset < bytes.count {
            let written = try retrying("write") {
                bytes.withUnsafeBytes { Glibc.write(file.raw, $0.baseAddress! + offset, $0.count - offset) }
            }
            offset += written
        }
    }

    package static func rename(_ from: String, to: String) throws(SystemFailure) {
        guard Glibc.rename(from, to) == 0 else { throw failure("rename \(from) to \(to)") }
    }

    /// A name that already exists counts as done: it was made by an earlier alias of the same file.
    package static func link(_ existing: String, to path: String) throws(SystemFailure) {
        guard Glibc.link(existing, path) == 0 || errno == EEXIST else { throw failure("link \(existing) to \(path)") }
    }

    /// Runs a system call again while it is interrupted by a signal.
    static func retrying<T: BinaryInteger>(_ what: @autoclosure () -> String, _ call: () -> T) throws(SystemFailure) -> T {
        try retrying(call) { _ in failure(what()) }
    }

    /// The same, with the caller turning the errno into its error (a missing file can be a 404).
    package static func retrying<T: BinaryInteger, Failure: Error>(_ call: () -> T, failure: (Int32) -> Failure) throws(Failure) -> T {
        while true {
            let result = call()
            if result >= 0 { return result }
            let code = errno
            if code != EINTR { throw failure(code) }
        }
    }

    static func failure(_ what: String) -> SystemFailure {
        .internalFailure("\(what): \(String(cString: strerror(errno)))")
    }
}
