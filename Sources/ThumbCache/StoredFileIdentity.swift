#if canImport(Glibc)
import Glibc
#endif
import ThumbRequest
import ThumbRuntime

/// Which thumbnail a stored file is (its key and source, as the index groups and purges by), kept
/// on the file itself in an extended attribute: a file's name is its URL's signature, which says
/// neither, so a rebuilt index reads them back from here. On a file system without user
/// attributes, a rebuilt index groups files by inode and cannot purge them by source.
struct StoredFileIdentity: Equatable {
    static let attribute = "user.thumbd"

    let keyHash: UInt64
    let sourceHash: UInt64

    init(keyHash: UInt64, sourceHash: UInt64) {
        self.keyHash = keyHash
        self.sourceHash = sourceHash
    }

    init(key: ThumbnailKey, sourceURL: String) {
        self.init(keyHash: CacheIndex.keyHash(key), sourceHash: CacheIndex.sourceHash(sourceURL))
    }

    /// Written on the temp file before its rename. Not written (ENOTSUP, or no room for it) costs
    /// only what the type's comment says: the thumbnail is stored all the same.
    func mark(_ file: borrowing FileDescriptor) {
        ExtendedAttribute.set(Self.attribute, to: (keyHash.littleEndian, sourceHash.littleEndian), on: file)
    }

    /// What `mark` wrote on the file at `path`, nil when nothing (or something else) is there.
    static func read(_ path: String) -> StoredFileIdentity? {
        guard let value = ExtendedAttribute.value(attribute, at: path, as: (UInt64(0), UInt64(0))) else { return nil }
        return StoredFileIdentity(keyHash: UInt64(littleEndian: value.0), sourceHash: UInt64(littleEndian: value.1))
    }
}
