#if canImport(Glibc)
import Glibc
#endif

/// The directory nginx serves. Files appear in it only by rename, so nginx never sees half a
/// thumbnail; nothing but thumbnails lives in it.
public struct CacheStore: Sendable {
    public let root: String

    public init(root: String) {
        self.root = root
    }

    public func absolute(_ path: CachePath) -> String { root + path.relative }

    /// The thumbnail already stored for this URI, if any, looked up as nginx would.
    public func existing(documentURI: String, naming: CachePath.Naming = .shared, negotiated: ImageFormat? = nil) -> CachePath? {
        CachePath.candidates(documentURI: documentURI, naming: naming, negotiated: negotiated)
            .first { FileSystem.isRegularFile(absolute($0)) }
    }

    public func read(_ path: CachePath) throws(ThumbError) -> [UInt8] {
        try FileSystem.read(absolute(path))
    }

    /// Writes through a temp file in the target directory, made readable by nginx's workers,
    /// then renamed into place.
    public func publish(_ bytes: [UInt8], at path: CachePath) throws(ThumbError) {
        let target = absolute(path)
        try FileSystem.createDirectories(forFile: target)
        let temp = try FileSystem.makeTempFile(besides: target)
        var open = true
        do {
            try FileSystem.writeAll(bytes, to: temp.fd)
            // close releases the descriptor even when it reports an error: never close it twice,
            // the number may already belong to another thread's file or socket.
            open = false
            try FileSystem.close(temp.fd)
            try FileSystem.rename(temp.path, to: target)
        } catch {
            if open { _ = Glibc.close(temp.fd) }
            unlink(temp.path)
            throw error
        }
    }

    /// Makes a second URI of the same thumbnail a static file too, without a second copy:
    /// a hard link, which appears whole or not at all.
    public func alias(_ path: CachePath, to existing: CachePath) throws(ThumbError) {
        guard path != existing else { return }
        let target = absolute(path)
        try FileSystem.createDirectories(forFile: target)
        try FileSystem.link(absolute(existing), to: target)
    }
}
