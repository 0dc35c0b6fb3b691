#if canImport(Glibc)
import Glibc
#endif
import Testing
import ThumbFetch
@testable import ThumbRuntime

/// The walk `local://` reads fall back to where the kernel has no openat2: one component at a
/// time, never through a symlink. (With openat2 the kernel does the same: both are checked.)
@Suite(.timeLimit(.minutes(2)))
struct SymlinkFreeWalkTests {
    static let refused = FetchFailure.forbidden("symlink on the way")

    static func failure(_ code: Int32) -> FetchFailure {
        code == ELOOP || code == ENOTDIR || code == EXDEV ? refused : .internalFailure("errno \(code)")
    }

    /// Opens `relative` under the tree's root both ways: each way's error, nil where it opened.
    static func open(_ relative: String, in tree: LocalFileReaderTests.Tree) throws -> [FetchFailure?] {
        let raw = Glibc.open(tree.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(raw >= 0)
        let root = FileDescriptor(owning: raw)
        let components = relative.split(separator: "/")
        return [
            outcome { try SymlinkFreeWalk.openDirectory(components, beneath: root, failure: failure) },
            outcome { try SymlinkFreeWalk.walk(components, beneath: root, failure: failure) },
        ]
    }

    static func outcome(_ open: () throws -> FileDescriptor) -> FetchFailure? {
        do {
            _ = try open()
            return nil
        } catch {
            return error as? FetchFailure
        }
    }

    @Test func directoriesWithoutSymlinksAreOpened() throws {
        let tree = try LocalFileReaderTests.Tree()
        try tree.directory("root/a")
        try tree.directory("root/a/b")

        #expect(try Self.open("a/b", in: tree) == [nil, nil])
        #expect(try Self.open("", in: tree) == [nil, nil])
    }

    @Test func aSymlinkOnTheWayIsRefusedEvenInsideTheRoot() throws {
        let tree = try LocalFileReaderTests.Tree()
        try tree.directory("root/a")
        try tree.directory("root/a/b")
        try tree.symlink("root/inside", to: "a")
        try tree.symlink("root/a/out", to: tree.base + "/root2")

        #expect(try Self.open("inside/b", in: tree) == [Self.refused, Self.refused])
        #expect(try Self.open("a/out", in: tree) == [Self.refused, Self.refused])
    }
}
