import Foundation
@testable import ThumbCache
@testable import ThumbRequest
import ThumbImaging

package func servedName(_ name: String) -> String { "/served/\(name.first!)/\(name).jpg" }

/// A cache directory and its index in a temp directory.
package final class TestCache: @unchecked Sendable {
    package let directory: TestDirectory
    package var root: String { directory.path + "/cache" }
    package var indexPath: String { directory.path + "/cache.index" }

    package init() throws {
        directory = try TestDirectory()
        try FileManager.default.createDirectory(atPath: directory.path + "/cache", withIntermediateDirectories: true)
    }

    /// Recognises what an older, insecure (unsigned) thumbd stored.
    package static let oldLayout = OldLayout(parser: RequestPathParser(verifier: SignatureVerifier.insecure, baseURL: nil,
                                                                       policy: Renderer.encodePolicy))

    /// A pid no process has: above Linux's PID_MAX_LIMIT (2^22), the most `pid_max` can be.
    package static let deadPID: UInt32 = 1 << 22

    package func index(maxEntries: Int = 1000) throws -> CacheIndex {
        try CacheIndex(root: root, path: indexPath, maxEntries: maxEntries)
    }

    /// Publishes a file of `bytes` bytes at `path` through the index, as the cache store does.
    package func store(_ index: CacheIndex, _ path: String, bytes: Int, key: UInt64, source: UInt64 = 1) throws {
        try index.store(CacheIndex.Record(path: path, keyHash: key, sourceHash: source, bytes: bytes, isLink: false)) {
            () throws(CacheFailure) in
            do { try write(path, bytes: bytes) } catch { throw .internalFailure("\(error)") }
        }
    }

    package func write(_ path: String, bytes: Int) throws {
        let url = URL(fileURLWithPath: root + path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(repeating: 7, count: bytes).write(to: url)
    }

    package func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: root + path) }
}
