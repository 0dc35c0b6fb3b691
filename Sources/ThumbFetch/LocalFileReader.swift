#if canImport(Glibc)
import Glibc
#endif
import ThumbRequest
import ThumbRuntime

/// Reads `local:///path` sources from under one directory (imgproxy's
/// IMGPROXY_LOCAL_FILESYSTEM_ROOT), so images on thumbd's own disk can be thumbnailed without an
/// origin server, and nothing outside that directory can be read through a URL.
///
/// Local sources are off unless a root is configured. The caller models that by holding an
/// optional reader: with `nil`, a `local://` source is answered with `LocalFileReader.notEnabled`
/// (403), never read relative to some default directory.
///
/// Whether a `local://` source is allowed at all is the allowed-sources list's decision
/// (`SourceAllowList`); this type only keeps a path inside the root.
public struct LocalFileReader: Sendable {
    public static let scheme = "local://"
    /// The answer to a `local://` source when no root is configured.
    public static let notEnabled = FetchFailure.forbidden("local sources are not enabled")

    /// As configured; resolved with realpath(3) on every read, so a root that is itself a symlink
    /// (a release directory, say) may be switched while thumbd runs.
    public let root: String
    /// Files larger than this are refused before a byte is read.
    public let maxBytes: Int

    public init(root: String, maxBytes: Int) {
        self.root = root
        self.maxBytes = maxBytes
    }

    public static func isLocal(_ url: String) -> Bool {
        url.hasPrefix(scheme)
    }

    /// The bytes of the file `url` names under the root: 403 for a path that is not absolute,
    /// holds a NUL or a `..` segment, or leads (through symlinks) outside the root; 404 for a
    /// missing file or anything but a regular file; 413 over `maxBytes`.
    public func read(_ url: String) throws(FetchFailure) -> [UInt8] {
        let path = try Self.relativePath(of: url)
        let rootPath = try Self.resolvedRoot(root)
        let resolved = try Self.resolve(root + path)
        // The root's own realpath + "/" + something: a symlink whose target is outside the root
        // resolves outside it; the root itself (`local:///`) is not a file in it.
        let inside = rootPath == "/" ? "/" : rootPath + "/"
        guard resolved.hasPrefix(inside), resolved.utf8.count > inside.utf8.count else {
            throw Self.outsideRoot
        }
        return try readRegularFile(resolved.dropFirst(inside.count).split(separator: "/"), under: rootPath)
    }

    private static let outsideRoot = FetchFailure.forbidden("local source is outside the local filesystem root")

    /// The path after `local://`, percent-decoded once, and checked after decoding, so `%2e%2e`
    /// and `%00` are refused exactly as `..` and a NUL are.
    private static func relativePath(of url: String) throws(FetchFailure) -> String {
        guard isLocal(url) else { throw .badRequest("not a local:// source") }
        guard let bytes = PercentDecoding.decode(url.utf8.dropFirst(scheme.utf8.count)) else {
            throw .badRequest("invalid percent-encoding in local source path")
        }
        guard bytes.first == UInt8(ascii: "/") else {
            throw .forbidden("local source path must start with /")
        }
        guard !bytes.contains(0) else { throw .forbidden("local source path contains NUL") }
        let segments = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard !segments.contains(where: { $0.elementsEqual("..".utf8) }) else {
            throw .forbidden("local source path contains ..")
        }
        // File names are bytes to the kernel; a name that is not UTF-8 is not found rather than
        // altered by a repair into another name.
        guard let path = String(validating: bytes, as: UTF8.self) else { throw .sourceNotFound }
        return path
    }

    /// realpath(3): every symlink on the way followed, every `.` and `//` gone.
    private static func resolve(_ path: String) throws(FetchFailure) -> String {
        guard let resolved = realpath(path, nil) else { throw failure(errno, "local source") }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// A root that is gone is the operator's problem (500), never the client's 404.
    private static func resolvedRoot(_ root: String) throws(FetchFailure) -> String {
        guard let resolved = realpath(root, nil) else {
            throw .internalFailure("local filesystem root \(root): \(String(cString: strerror(errno)))")
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `components` (under the root's realpath) hold no symlink (realpath resolved them), so
    /// the directory is opened refusing any symlink on the way: one swapped in since realpath, for
    /// a directory or the file, is refused rather than followed out of the root. The mode is
    /// checked before opening, because opening a FIFO blocks and opening a device may act on it;
    /// O_NONBLOCK covers a FIFO that appears in between, and fstat on the open descriptor decides
    /// what is read.
    private func readRegularFile(_ components: [Substring], under rootPath: String) throws(FetchFailure) -> [UInt8] {
        let root = try SymlinkFreeWalk.openRoot(rootPath) {
            Self.failure($0, "local filesystem root")
        }
        let directory = try SymlinkFreeWalk.openDirectory(components.dropLast(), beneath: root) {
            Self.failure($0, "local source")
        }
        let name = String(components.last!)
        var info = stat()
        guard fstatat(directory.raw, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { throw Self.failure(errno, "local source") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .sourceNotFound }
        let file = FileDescriptor(owning: try FileSystem.retrying({
            openat(directory.raw, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        }) { Self.failure($0, "local source") })
        guard fstat(file.raw, &info) == 0 else { throw Self.failure(errno, "local source") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .sourceNotFound }
        guard info.st_size <= maxBytes else { throw .sourceTooLarge(limit: maxBytes) }
        // A file that grows while it is read is cut at the size fstat gave; one that shrinks ends early.
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let count = try FileSystem.retrying({
                bytes.withUnsafeMutableBytes { Glibc.read(file.raw, $0.baseAddress! + offset, $0.count - offset) }
            }) { Self.failure($0, "local source") }
            guard count > 0 else { break }
            offset += count
        }
        return Array(bytes[..<offset])
    }

    /// A missing file is the client's 404; a path that leads through a symlink (ELOOP under
    /// O_NOFOLLOW) or into a directory thumbd may not read is 403, one out of the root (EXDEV
    /// under RESOLVE_BENEATH) too; the rest is thumbd's machine.
    private static func failure(_ code: Int32, _ what: String) -> FetchFailure {
        switch code {
        case ENOENT, ENOTDIR: .sourceNotFound
        case EXDEV: outsideRoot
        case EACCES, EPERM, ELOOP: .forbidden("\(what) is not readable")
        case ENAMETOOLONG: .badRequest("local source path is too long")
        default: .internalFailure("\(what): \(String(cString: strerror(code)))")
        }
    }
}
