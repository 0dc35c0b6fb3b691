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
}
