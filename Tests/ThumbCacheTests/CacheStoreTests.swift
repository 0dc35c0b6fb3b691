import Foundation
import Testing
import ThumbImaging
import ThumbdTestSupport
@testable import ThumbCache
@testable import ThumbRequest
@testable import ThumbRuntime

/// Publishing appears whole or not at all, a failure leaves nothing behind, and the layout keeps
/// its fixed fan-out.
@Suite(.timeLimit(.minutes(2)))
struct CacheStoreTests {
    static let key = ThumbnailKey(source: "http://h/a.png", options: ProcessingOptions(), policy: Renderer.encodePolicy)
    static let signature = "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8"
    static let path = CachePath(signature: signature, documentURI: "/\(signature)/w:10/plain/http://h/a.png", format: .png)

    @Test func aPublishThatCannotRenameLeavesNoTempFile() throws {
        // Given a cache whose target name is taken by a directory
        let root = try TestDirectory()
        let store = try CacheStore(index: CacheIndex(root: root.path + "/cache", path: root.path + "/cache.index", maxEntries: 100))
        try FileManager.default.createDirectory(atPath: store.absolute(Self.path) + "/in-the-way", withIntermediateDirectories: true)

        // When a thumbnail is published there
        #expect(throws: CacheFailure.self) { try store.publish([1, 2, 3], at: Self.path, key: Self.key, sourceURL: "http://h/a.png") }

        // Then no temp file is left in its directory, and nothing is counted
        let directory = (store.absolute(Self.path) as NSString).deletingLastPathComponent
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(FileSystem.tempPrefix) }
        #expect(leftovers.isEmpty)
        #expect(store.index.usage.entries == 0)
    }

    @Test func aPublishedFileIsWholeReadableByNginxAndMarkedWithItsIdentity() throws {
        let root = try TestDirectory()
        try FileManager.default.createDirectory(atPath: root.path + "/cache", withIntermediateDirectories: true)
        let store = try CacheStore(index: CacheIndex(root: root.path + "/cache", path: root.path + "/cache.index", maxEntries: 100))
        try store.publish(Array(repeating: 7, count: 100_000), at: Self.path, key: Self.key, sourceURL: "http://h/a.png")

        #expect(try FileSystem.read(store.absolute(Self.path)) == Array(repeating: 7, count: 100_000))
        let mode = try FileManager.default.attributesOfItem(atPath: store.absolute(Self.path))[.posixPermissions] as? Int
        #expect(mode == 0o644)
        let request = ThumbnailRequest(sourceURL: "http://h/a.png", options: ProcessingOptions(), signature: Self.signature,
                                       policy: Renderer.encodePolicy)
        #expect(store.existing(for: request, documentURI: "/\(Self.signature)/w:10/plain/http://h/a.png") == Self.path)
        #expect(StoredFileIdentity.read(store.absolute(Self.path)) == StoredFileIdentity(key: Self.key, sourceURL: "http://h/a.png"))
    }

    @Test func thumbnailsOfManyURLsShareAFixedFanOutOfDirectories() throws {
        // Given a cache
        let base = try TestDirectory()
        try FileManager.default.createDirectory(atPath: base.path + "/cache", withIntermediateDirectories: true)
        let store = try CacheStore(index: CacheIndex(root: base.path + "/cache", path: base.path + "/cache.index", maxEntries: 3000))
        let verifier = SignatureVerifier(pairs: [.init(key: Array("k".utf8), salt: Array("s".utf8))])

        // When 2,000 signed URLs with deep paths and 200 private ones are stored
        for number in 0..<2_200 {
            let uri = "/rs:fill:\(number):10/plain/http://h/dir\(number)/sub/a.jpg@webp"
            let signature = verifier.signature(for: Substring(uri), with: verifier.pairs[0])
            let path = CachePath(signature: signature, documentURI: "/\(signature)\(uri)", format: .webp,
                                 naming: number < 2_000 ? .shared : .thumbdOnly)
            try store.publish([1, 2, 3], at: path, key: Self.key, sourceURL: "http://h/a.png")
        }

        // Then there are at most 64 + 16 fan-out directories, and every file is one of them deep
        var directories = 0
        var files = 0
        let walker = FileManager.default.enumerator(atPath: store.root)
        while let item = walker?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: store.root + "/" + item, isDirectory: &isDirectory)
            if isDirectory.boolValue { directories += 1 } else { files += 1 }
            #expect(item.split(separator: "/").count <= 3)
        }
        #expect(files == 2_200)
        #expect(directories <= 2 + 64 + 16)
    }

    @Test func aCacheRootReachedThroughASymlinkStillTakesThumbnails() throws {
        // Given a cache root named by a symlink to the real directory
        let base = try TestDirectory()
        try FileManager.default.createDirectory(atPath: base.path + "/real", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: base.path + "/cache", withDestinationPath: base.path + "/real")
        let store = try CacheStore(index: CacheIndex(root: base.path + "/cache", path: base.path + "/cache.index", maxEntries: 100))

        // When a thumbnail is published
        try store.publish([1, 2, 3], at: Self.path, key: Self.key, sourceURL: "http://h/a.png")

        // Then it is in the real directory, and counted
        #expect(try FileSystem.read(base.path + "/real" + Self.path.relative) == [1, 2, 3])
        #expect(store.index.usage.entries == 1)
    }
}
