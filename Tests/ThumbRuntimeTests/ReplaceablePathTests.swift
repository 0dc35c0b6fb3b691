import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbRuntime

/// A log nginx's master opens as root must sit where thumbd's user cannot swap it for a link
/// (CVE-2016-1247): each directory on the way, read from its owner and mode.
@Suite(.timeLimit(.minutes(1)))
struct ReplaceablePathTests {
    let directory: TestDirectory
    let nobody: ReplaceablePath.User
    let nobodyGroup: gid_t

    init() throws {
        directory = try TestDirectory()
        let entry = try #require(getpwnam("nobody")).pointee
        nobody = ReplaceablePath.User(uid: entry.pw_uid, groups: [entry.pw_gid])
        nobodyGroup = entry.pw_gid
    }

    /// `{directory}/logs/hits.log`, its directory made with `owner`, `group` and `mode`.
    func log(owner: uid_t = 0, group: gid_t = 0, mode: mode_t = 0o755) throws -> String {
        let logs = directory.path + "/logs"
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        #expect(chown(logs, owner, group) == 0 && chmod(logs, mode) == 0)
        return logs + "/hits.log"
    }

    @Test func aDirectoryOnlyRootMayWriteIsSafe() throws {
        guard geteuid() == 0 else { return print("skipped: needs root to give directories away") }
        let path = try log()

        #expect(ReplaceablePath.directory(where: nobody, canReplace: path) == nil)
    }

    @Test func theUsersOwnDirectoryLetsItReplaceTheLog() throws {
        guard geteuid() == 0 else { return print("skipped: needs root to give directories away") }
        // Given the log's directory owned by the user, even one the user may not write yet
        let path = try log(owner: nobody.uid, group: nobodyGroup, mode: 0o555)

        // Then the user can (it may change the mode)
        #expect(ReplaceablePath.directory(where: nobody, canReplace: path) == directory.path + "/logs")
        #expect(ReplaceablePath.directory(where: .init(uid: 12345, groups: [12345]), canReplace: path) == nil)
    }

    @Test func aGroupOrOthersMayWriteOnlyWhereTheirBitsSay() throws {
        guard geteuid() == 0 else { return print("skipped: needs root to give directories away") }
        // Given root's directory writable by the user's group
        let path = try log(group: nobodyGroup, mode: 0o775)

        // Then a member can replace the log, a user outside the group cannot
        #expect(ReplaceablePath.directory(where: nobody, canReplace: path) == directory.path + "/logs")
        #expect(ReplaceablePath.directory(where: .init(uid: nobody.uid, groups: []), canReplace: path) == nil)

        // and anyone can where others may write
        #expect(chmod(directory.path + "/logs", 0o757) == 0)
        #expect(ReplaceablePath.directory(where: .init(uid: nobody.uid, groups: []), canReplace: path) != nil)
    }

    @Test func aStickyDirectoryLetsAUserReplaceOnlyItsOwnOrAMissingLog() throws {
        guard geteuid() == 0 else { return print("skipped: needs root to give directories away") }
        // Given a log in a directory anyone may write, sticky as /tmp is, not there yet
        let path = try log(mode: 0o1777)
        #expect(ReplaceablePath.directory(where: nobody, canReplace: path) != nil)

        // When root makes it, it is root's; when the user owns it, the user's to replace
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        #expect(ReplaceablePath.directory(where: nobody, canReplace: path) == nil)
        #expect(chown(path, nobody.uid, nobodyGroup) == 0)
        #expect(ReplaceablePath.directory(where: nobody, canReplace: path) == directory.path + "/logs")
    }

    @Test func aDirectoryFurtherUpTheWayCountsToo() throws {
        guard geteuid() == 0 else { return print("skipped: needs root to give directories away") }
        // Given root's log directory inside a directory the user owns (it can rename the log's away)
        let path = try log()
        #expect(chown(directory.path, nobody.uid, nobodyGroup) == 0)

        #expect(ReplaceablePath.directory(where: nobody, canReplace: path) == directory.path)
    }

    @Test func aLinkOnTheWayIsFollowedToTheDirectoryItLeadsTo() throws {
        guard geteuid() == 0 else { return print("skipped: needs root to give directories away") }
        // Given root's path to the log through a link to a directory the user owns
        let target = try TestDirectory()
        #expect(chown(target.path, nobody.uid, nobodyGroup) == 0)
        let link = directory.path + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target.path)

        #expect(ReplaceablePath.directory(where: nobody, canReplace: link + "/hits.log") == link)
    }
}
