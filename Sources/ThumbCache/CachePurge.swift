import ThumbRequest
import ThumbRuntime

/// Removes thumbnails on an operator's word: all of one source (every size and format), one
/// thumbnail by its URL or by the key thumbd logs, or everything. Files go first, then their
/// entries, as eviction does; the next request for a purged URL misses in nginx and is made anew.
public struct CachePurge: Sendable {
    let index: CacheIndex
    let parser: RequestPathParser

    public init(index: CacheIndex, parser: RequestPathParser) {
        self.index = index
        self.parser = parser
    }

    public typealias Removed = (files: Int, bytes: UInt64)

    /// Every thumbnail of the source URL, as thumbd fetches it (the URL a plain source decodes to).
    public func source(_ url: String) throws(CacheFailure) -> Removed {
        let source = CacheIndex.sourceHash(url)
        return try removingKeys { $0.sourceHash == source }
    }

    /// The thumbnail of one URL (or its path), in every format and negotiated variant, and every
    /// other spelling of it.
    public func url(_ url: String) throws(CacheFailure) -> Removed {
        let rawPath = RequestTarget.path(of: url)
        guard let documentURI = URIDecoding.decodedPath(rawPath) else { throw .badRequest("path has bad escapes or dot segments") }
        let request: ThumbnailRequest
        do throws(RequestFailure) {
            request = try parser.parse(rawPath: rawPath)
        } catch {
            throw .request(error)
        }
        let paths = Set(CachePath.everyName(signature: request.signature, documentURI: documentURI).map(\.relative))
        let key = CacheIndex.keyHash(request.key)
        return try removingKeys { $0.keyHash == key || paths.contains($0.path) }
    }

    /// The thumbnail whose key thumbd logged (`key=...` on its miss line).
    public func key(_ digest: String) throws(CacheFailure) -> Removed {
        guard let key = CacheIndex.keyHash(digest: digest) else { throw .badRequest("a key is 16 or more hex digits") }
        return try removingKeys { $0.keyHash == key }
    }

    public func all() throws(CacheFailure) -> Removed {
        let removed = try index.remove { _ in true }
        try index.notePurge()
        return removed
    }

    /// Every file of each key that `select` picks one file of.
    private func removingKeys(_ select: (IndexEntryView) -> Bool) throws(CacheFailure) -> Removed {
        let keys = Set(try index.entries().filter(select).map(\.keyHash))
        guard !keys.isEmpty else { return (0, 0) }
        let removed = try index.remove { keys.contains($0.keyHash) }
        try index.notePurge()
        return removed
    }
}
