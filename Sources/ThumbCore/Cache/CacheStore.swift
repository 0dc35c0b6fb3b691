#if canImport(Glibc)
import Glibc
#endif

/// The directory nginx serves. Files appear in it only by rename, so nginx never sees half a
/// thumbnail; nothing but thumbnails lives in it. Every file is counted in the index before it
/// appears, so the index bounds what the directory holds.
public struct CacheStore: Sendable {
    public let index: CacheIndex
    public var root: String { index.root }

    public init(index: CacheIndex) {
        self.index = index
    }

    public func absolute(_ path: CachePath) -> String { root + path.relative }

    /// The thumbnail already stored for this URI, if any, looked up as nginx would.
    public func existing(documentURI: String, naming: CachePath.Naming = .shared, format: ImageFormat? = nil) -> CachePath? {
        CachePath.candidates(documentURI: documentURI, naming: naming, format: format)
            .first { FileSystem.isRegularFile(absolute($0)) }
    }

    /// Writes through a temp file in the target directory, made readable by nginx's workers,
    /// then counted in the index and renamed into place.
    public func publish(_ bytes: [UInt8], at path: CachePath, key: ThumbnailKey, sourceURL: String) throws(ThumbError) {
        let target = try directoryBelowRoot(for: path)
        let temp = try FileSystem.makeTempFile(besides: target)
        var open = true
        do {
            try FileSystem.writeAll(bytes, to: temp.fd)
            // close releases the descriptor even when it reports an error: never close it twice,
            // the number may already belong to another thread's file or socket.
            open = false
            try FileSystem.close(temp.fd)
            try index.store(CacheIndex.Record(path: path.relative, key: key, sourceURL: sourceURL, bytes: bytes.count)) {
                () throws(ThumbError) in try FileSystem.rename(temp.path, to: target)
            }
        } catch {
            if open { _ = Glibc.close(temp.fd) }
            unlink(temp.path)
            throw error
        }
    }

    /// Makes a second URI of the same thumbnail a static file too, without a second copy:
    /// a hard link, which appears whole or not at all, counted with the key's other files.
    public func alias(_ path: CachePath, to existing: CachePath, key: ThumbnailKey, sourceURL: String) throws(ThumbError) {
        guard path != existing else { return }
        let target = try directoryBelowRoot(for: path)
        try index.store(CacheIndex.Record(path: path.relative, key: key, sourceURL: sourceURL, bytes: 0, isLink: true)) {
            () throws(ThumbError) in try FileSystem.link(absolute(existing), to: target)
        }
    }

    /// Makes the directories of `path` and returns where its file goes, once sure that this is
    /// below the cache root and named as no temp file is: no dot segment, no segment beginning as
    /// a temp file's name, and the directory's real path (every symlink resolved) inside the root's.
    /// The paths come from FastCGI parameters, which thumbd checks but does not only get from
    /// nginx: whatever they say, nothing is written anywhere else.
    private func directoryBelowRoot(for path: CachePath) throws(ThumbError) -> String {
        let target = absolute(path)
        guard !path.relative.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) else {
            throw .badRequest("path leads out of the cache")
        }
        try FileSystem.refuseTempNames(path.relative)
        try FileSystem.createDirectories(forFile: target)
        let directory = String(target[..<(target.lastIndex(of: "/") ?? target.startIndex)])
        guard let real = FileSystem.realPath(directory), let realRoot = FileSystem.realPath(root),
              real == realRoot || real.hasPrefix(realRoot.hasSuffix("/") ? realRoot : realRoot + "/") else {
            throw .badRequest("path leads out of the cache")
        }
        return target
    }
}
