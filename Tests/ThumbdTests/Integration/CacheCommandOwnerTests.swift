import Foundation
import Testing
import ThumbdTestSupport

/// `thumbd cache` run as root does what the cache's owner could, no more: the index and the paths
/// in it are that user's writing. It stays root only in a cache that is root's alone.
@Suite(.blocking, .timeLimit(.minutes(1)), .enabled(if: geteuid() == 0, "needs root"))
struct CacheCommandOwnerTests {
    /// The root named as it is, and by a symlink root made to it.
    @Test(arguments: [false, true])
    func runAsRootThePurgeBecomesTheCachesOwner(throughSymlink: Bool) throws {
        // Given a cache owned by nobody, whose index counts a thumbnail of nobody's and a file in
        // a directory only root may write
        let nobody = try #require(getpwnam("nobody")).pointee
        let cache = try TestCache()
        let index = try cache.index()
        try cache.store(index, servedName("nn"), bytes: 10, key: 1)
        try cache.store(index, servedName("rr"), bytes: 10, key: 2)
        for path in ["", "/served", "/served/n", servedName("nn")] {
            chown(cache.root + path, nobody.pw_uid, nobody.pw_gid)
        }
        chown(cache.indexPath, nobody.pw_uid, nobody.pw_gid)
        let root = throughSymlink ? cache.directory.path + "/link" : cache.root
        if throughSymlink { try FileManager.default.createSymbolicLink(atPath: root, withDestinationPath: cache.root) }

        // When root purges everything
        let (status, text) = try purgeAll(root: root, index: cache.indexPath)

        // Then it removed what nobody could remove, and left root's file where it was
        #expect(status == 0, "\(text)")
        #expect(text.contains("purged 1 files"), "\(text)")
        #expect(!cache.exists(servedName("nn")))
        #expect(cache.exists(servedName("rr")))
    }

    @Test func runAsRootThePurgeTakesTheOwnersGroupNotTheCaches() throws {
        // Given a cache as the package lays it out: nobody's (as thumbd's), in nginx's group
        // www-data, which nobody is not in, with a thumbnail of nobody's and one in a directory
        // only root and that group may write
        let nobody = try #require(getpwnam("nobody")).pointee
        let webGroup = try #require(getgrnam("www-data")).pointee.gr_gid
        let cache = try TestCache()
        let index = try cache.index()
        try cache.store(index, servedName("nn"), bytes: 10, key: 1)
        try cache.store(index, servedName("gg"), bytes: 10, key: 2)
        for path in ["", "/served", "/served/n", servedName("nn")] {
            chown(cache.root + path, nobody.pw_uid, webGroup)
        }
        chown(cache.root + "/served/g", 0, webGroup)
        chmod(cache.root + "/served/g", 0o775)
        chown(cache.indexPath, nobody.pw_uid, webGroup)

        // When root purges everything
        let (status, text) = try purgeAll(root: cache.root, index: cache.indexPath)

        // Then it removed what nobody could remove, and not what only the cache's group could
        #expect(status == 0, "\(text)")
        #expect(text.contains("purged 1 files"), "\(text)")
        #expect(!cache.exists(servedName("nn")))
        #expect(cache.exists(servedName("gg")))
    }

    /// Root's cache root, writable by a group (nobody's), by everyone, or by root alone.
    @Test(arguments: [(0o775 as mode_t, false), (0o757, false), (0o755, true)])
    func runAsRootTheCommandStaysRootOnlyInACacheThatIsRootsAlone(mode: mode_t, staysRoot: Bool) throws {
        // Given a cache root owned by root, in nobody's group, with this mode, and a thumbnail in it
        let nobody = try #require(getpwnam("nobody")).pointee
        let cache = try TestCache()
        let index = try cache.index()
        try cache.store(index, servedName("nn"), bytes: 10, key: 1)
        #expect(chown(cache.root, 0, nobody.pw_gid) == 0 && chmod(cache.root, mode) == 0)

        // When root purges everything
        let (status, text) = try purgeAll(root: cache.root, index: cache.indexPath)

        // Then it does so as root only where no one else may write; elsewhere it refuses, says
        // why, and removes nothing
        if staysRoot {
            #expect(status == 0 && text.contains("purged 1 files"), "\(text)")
            #expect(!cache.exists(servedName("nn")))
        } else {
            #expect(status != 0, "\(text)")
            #expect(text.contains("is root's, but its group or others may write it"), "\(text)")
            #expect(cache.exists(servedName("nn")))
        }
    }

    /// `thumbd cache purge --all` on the cache at `root`, as an operator runs it.
    private func purgeAll(root: String, index: String) throws -> (status: Int32, output: String) {
        try TestStack.thumbdCommand(["cache", "purge", "--all"], environment: [
            "THUMBD_CACHE_ROOT": root, "THUMBD_CACHE_INDEX": index, "THUMBD_INSECURE": "true",
        ])
    }
}
