#if canImport(Glibc)
import Glibc
#endif
import ThumbRequest
import ThumbRuntime

/// The cache directory. Files appear in it only by rename, so nginx never sees half a thumbnail;
/// nothing but thumbnails lives in it, one fan-out directory deep (CachePath). Every file is
/// counted in the index before it appears, so the index bounds what the directory holds.
public struct CacheStore: Sendable {
    public let index: CacheIndex
    public var root: String { index.root }
    private let recentlyStored: RecentlyStored

    public init(index: CacheIndex) {
        self.index = index
        recentlyStored = RecentlyStored(capacity: 10_000)
    }

    public func absolute(_ path: CachePath) -> String { root + path.relative }

    /// The thumbnail already stored for this request, if any, looked up as nginx would.
    public func existing(for request: ThumbnailRequest, documentURI: String) -> CachePath? {
        CachePath.candidates(signature: request.signature, documentURI: documentURI, naming: request.naming,
                             format: request.options.format)
            .first { FileSystem.isRegularFile(absolute($0)) }
    }

    /// Writes through a temp file in the target directory, made readable by nginx's workers and
    /// marked with the thumbnail's identity, then counted in the index and renamed into place.
    public func publish(_ bytes: [UInt8], at path: CachePath, key: ThumbnailKey, sourceURL: String) throws(CacheFailure) {
        let target = try directoryMade(for: path)
        let temp = try systemCall { () throws(SystemFailure) in try FileSystem.makeTempFile(besides: target) }
        let tempPath = temp.path
        do throws(CacheFailure) {
            try systemCall { () throws(SystemFailure) in try FileSystem.writeAll(bytes, to: temp.file) }
            StoredFileIdentity(key: key, sourceURL: sourceURL).mark(temp.file)
            do throws(SystemFailure) {
                try temp.close()
            } catch {
                throw CacheFailure(error)
            }
            try index.store(CacheIndex.Record(path: path.relative, key: key, sourceURL: sourceURL, bytes: bytes.count)) {
                () throws(CacheFailure) in try systemCall { () throws(SystemFailure) in try FileSystem.rename(tempPath, to: target) }
            }
            recentlyStored.keep(path, for: key)
        } catch {
            unlink(tempPath)
            throw error
        }
    }

    /// Where this process last stored the thumbnail of `key`, as far as it remembers: no disk is
    /// touched, so a job asks before it hands anything to a pool.
    public func lastStored(_ key: ThumbnailKey) -> CachePath? {
        recentlyStored[key]
    }

    /// `request`'s own name for the thumbnail stored at `stored` under another spelling of its
    /// URL (the same key), made a link to that file; nil when the file has gone (evicted,
    /// purged) since.
    public func linkIfStillThere(_ request: ThumbnailRequest, documentURI: String,
                                 to stored: CachePath) throws(CacheFailure) -> CachePath? {
        guard FileSystem.isRegularFile(absolute(stored)) else { return nil }
        return try link(request, documentURI: documentURI, to: stored)
    }

    /// Where `request`'s URL has the thumbnail stored at `stored` (the same key, perhaps spelt
    /// otherwise): its own name, made a link to that file when it is another name.
    public func link(_ request: ThumbnailRequest, documentURI: String, to stored: CachePath) throws(CacheFailure) -> CachePath {
        let own = request.cachePath(documentURI: documentURI, format: stored.format)
        try alias(own, to: stored, key: request.key, sourceURL: request.sourceURL)
        return own
    }

    /// Makes a second URL of the same thumbnail a static file too, without a second copy:
    /// a hard link, which appears whole or not at all, counted with the key's other files.
    public func alias(_ path: CachePath, to existing: CachePath, key: ThumbnailKey, sourceURL: String) throws(CacheFailure) {
        guard path != existing else { return }
        let target = try directoryMade(for: path)
        try index.store(CacheIndex.Record(path: path.relative, key: key, sourceURL: sourceURL, bytes: 0, isLink: true)) {
            () throws(CacheFailure) in try systemCall { () throws(SystemFailure) in try FileSystem.link(absolute(existing), to: target) }
        }
    }

    /// Makes the fan-out directory of `path` (and its parent) if missing, and returns where its
    /// file goes. A directory is never removed: there are at most 64 + 16 of them.
    private func directoryMade(for path: CachePath) throws(CacheFailure) -> String {
        let target = absolute(path)
        try systemCall { () throws(SystemFailure) in try FileSystem.createDirectories(forFile: target, below: root) }
        return target
    }
}
