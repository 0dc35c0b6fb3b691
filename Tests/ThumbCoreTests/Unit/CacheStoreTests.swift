import Foundation
import Testing
@testable import ThumbCore

/// Publishing appears whole or not at all, and a failure leaves nothing behind.
struct CacheStoreTests {
    static let key = ThumbnailKey(source: "http://h/a.png", options: ProcessingOptions())
    @Test func aPublishThatCannotRenameLeavesNoTempFile() throws {
        // Given a cache whose target name is taken by a directory
        let root = try TestDirectory()
        let store = try CacheStore(index: CacheIndex(root: root.path + "/cache", path: root.path + "/cache.index", maxEntries: 100))
        let path = CachePath(documentURI: "/insecure/w:10/plain/http://h/a.png", format: .png)
        try FileManager.default.createDirectory(atPath: store.absolute(path) + "/in-the-way", withIntermediateDirectories: true)

        // When a thumbnail is published there
        #expect(throws: ThumbError.self) { try store.publish([1, 2, 3], at: path, key: Self.key, sourceURL: "http://h/a.png") }

        // Then no temp file is left in its directory
        let directory = (store.absolute(path) as NSString).deletingLastPathComponent
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(FileSystem.tempPrefix) }
        #expect(leftovers.isEmpty)
    }

    @Test func aPublishedFileIsWholeAndReadableByNginx() throws {
        let root = try TestDirectory()
        let store = try CacheStore(index: CacheIndex(root: root.path + "/cache", path: root.path + "/cache.index", maxEntries: 100))
        let path = CachePath(documentURI: "/insecure/w:10/plain/http://h/a.png", format: .png)
        try store.publish(Array(repeating: 7, count: 100_000), at: path, key: Self.key, sourceURL: "http://h/a.png")
        #expect(try FileSystem.read(store.absolute(path)) == Array(repeating: 7, count: 100_000))
        let mode = try FileManager.default.attributesOfItem(atPath: store.absolute(path))[.posixPermissions] as? Int
        #expect(mode == 0o644)
        #expect(store.existing(documentURI: "/insecure/w:10/plain/http://h/a.png") == path)
    }

    @Test func nothingIsWrittenOutsideTheCacheRootWhateverThePathSays() throws {
        // Given a cache, a directory beside it, and a symlink inside it that leads there
        let base = try TestDirectory()
        let store = try CacheStore(index: CacheIndex(root: base.path + "/cache", path: base.path + "/cache.index", maxEntries: 100))
        try FileManager.default.createDirectory(atPath: base.path + "/cache/insecure", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: base.path + "/outside", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: base.path + "/cache/insecure/link", withDestinationPath: base.path + "/outside")

        // When thumbnails are published and linked at paths that climb out or lead out
        for uri in ["/insecure/../../outside/a.png", "/insecure/./../../outside/b.png", "/insecure/link/c.png"] {
            let path = CachePath(documentURI: uri, format: .png)
            #expect(throws: ThumbError.badRequest("path leads out of the cache"), "\(uri)") {
                try store.publish([1, 2, 3], at: path, key: Self.key, sourceURL: "http://h/a.png")
            }
            #expect(throws: ThumbError.badRequest("path leads out of the cache"), "\(uri)") {
                try store.alias(path, to: CachePath(documentURI: "/insecure/w:10/a.png", format: .png), key: Self.key,
                                sourceURL: "http://h/a.png")
            }
        }

        // Then nothing appeared outside, and nothing was counted
        #expect(try FileManager.default.contentsOfDirectory(atPath: base.path + "/outside").isEmpty)
        #expect(store.index.usage.entries == 0)
    }

    @Test func nothingIsStoredUnderANameATempFileWouldHave() throws {
        // Given a cache
        let base = try TestDirectory()
        let store = try CacheStore(index: CacheIndex(root: base.path + "/cache", path: base.path + "/cache.index", maxEntries: 100))

        // When thumbnails are published and linked at paths with a segment named as temp files are
        for uri in ["/insecure/w:10/plain/http://h/.thumbd-tmp-1-Ab12Cd@png", "/insecure/.thumbd-tmp-1-Ab12Cd/a.png"] {
            let path = CachePath(documentURI: uri, format: .png)
            let refusal = ThumbError.badRequest("path has a segment beginning .thumbd-tmp-, as thumbd's temp files do")
            #expect(throws: refusal, "\(uri)") { try store.publish([1, 2, 3], at: path, key: Self.key, sourceURL: "http://h/a.png") }
            #expect(throws: refusal, "\(uri)") {
                try store.alias(path, to: CachePath(documentURI: "/insecure/w:10/a.png", format: .png), key: Self.key,
                                sourceURL: "http://h/a.png")
            }
        }

        // Then nothing was written, and nothing was counted
        #expect(FileManager.default.enumerator(atPath: base.path + "/cache")?.allObjects.isEmpty ?? true)
        #expect(store.index.usage.entries == 0)
        // but a segment that only holds the name further on is a thumbnail's like any other
        let inside = CachePath(documentURI: "/insecure/w:10/plain/http://h/a.thumbd-tmp-1@png", format: .png)
        try store.publish([1, 2, 3], at: inside, key: Self.key, sourceURL: "http://h/a.png")
        #expect(FileManager.default.fileExists(atPath: store.absolute(inside)))
    }

    @Test func aCacheRootReachedThroughASymlinkStillTakesThumbnails() throws {
        // Given a cache root named by a symlink to the real directory
        let base = try TestDirectory()
        try FileManager.default.createDirectory(atPath: base.path + "/real", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: base.path + "/cache", withDestinationPath: base.path + "/real")
        let store = try CacheStore(index: CacheIndex(root: base.path + "/cache", path: base.path + "/cache.index", maxEntries: 100))

        // When a thumbnail is published
        let path = CachePath(documentURI: "/insecure/w:10/plain/http://h/a.png", format: .png)
        try store.publish([1, 2, 3], at: path, key: Self.key, sourceURL: "http://h/a.png")

        // Then it is in the real directory
        #expect(try FileSystem.read(base.path + "/real" + path.relative) == [1, 2, 3])
    }
}
