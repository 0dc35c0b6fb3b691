import Foundation
import Testing
import ThumbdTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A test run that was killed leaves its children running; the next run ends them, their whole
/// process groups, and nothing that is not theirs.
@Suite(.blocking, .timeLimit(.minutes(1)))
struct LeftoverChildrenTests {
    @Test func aDeadRunsChildrenAreEndedWithTheirGroupsAndALiveRunsAreNot() throws {
        // Given a child of a run that has died (its note names a runner that no longer exists),
        // with a grandchild in its group, and a child of this live run
        let directory = try #require(LeftoverChildren.directory)
        let orphan = try ChildProcess("/bin/sh", ["-c", "sleep 600 & wait"])
        let dead = try ChildProcess("/bin/true", [])
        try dead.wait(timeout: 30, for: "/bin/true to end")
        let orphanStart = try #require(LeftoverChildren.startTime(of: orphan.pid))
        let note = "\(directory)/\(dead.pid)-1-\(orphan.pid)-\(orphanStart)"
        #expect(FileManager.default.createFile(atPath: note, contents: nil))
        let grandchild = try waitForGrandchild(of: orphan.pid)
        let sibling = try ChildProcess("/bin/sleep", ["600"])
        defer { sibling.stop() }

        // When the next run sweeps
        LeftoverChildren.sweep()

        // Then the dead run's child and its group are gone, its note too, and this run's child lives
        #expect(try orphan.wait(timeout: 10, for: "the dead run's child to be killed") == SIGKILL)
        #expect(eventually(timeout: 10) { LeftoverChildren.startTime(of: grandchild) == nil })
        #expect(!FileManager.default.fileExists(atPath: note))
        #expect(sibling.isRunning)
    }

    /// The pid of the `sleep` the shell started in its group.
    private func waitForGrandchild(of shell: pid_t) throws -> pid_t {
        var found: pid_t?
        try waitUntil("the shell \(shell) starts its sleep") {
            let children = try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
            found = children?.split(separator: " ").first.flatMap { pid_t($0) }
            return found != nil
        }
        return found!
    }
}
