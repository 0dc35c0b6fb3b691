#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import ThumbFetch
@testable import ThumbRuntime

/// `local://` sources, read from a directory tree each test makes under /tmp and removes.
@Suite(.timeLimit(.minutes(2)))
struct LocalFileReaderTests {
    /// A directory from mkdtemp holding `root/` (the reader's root) and `outside/` (a sibling whose
    /// name starts like the root's, so a prefix check without the trailing `/` would let it in).
    final class Tree {
        let base: String
        var root: String { base + "/root" }
        private var created: [String] = []

        init() throws {
            var template = Array("/tmp/thumbd-local-XXXXXX".utf8CString)
            let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
            base = String(cString: try #require(made))
            try directory("root")
            try directory("root2")
        }

        deinit {
            for path in created.reversed() {
                var info = stat()
                if lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR { rmdir(path) } else { unlink(path) }
            }
            rmdir(base)
        }

        func directory(_ relative: String) throws {
            try #require(mkdir(base + "/" + relative, 0o755) == 0, "mkdir \(relative): \(errno)")
            created.append(base + "/" + relative)
        }

        func file(_ relative: String, _ bytes: [UInt8]) throws {
            let path = base + "/" + relative
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            try #require(fd >= 0, "create \(relative): \(errno)")
            created.append(path)
            defer { close(fd) }
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            try #require(written == bytes.count)
        }

        func symlink(_ relative: String, to target: String) throws {
            try #require(Glibc.symlink(target, base + "/" + relative) == 0, "symlink \(relative): \(errno)")
            created.append(base + "/" + relative)
        }

        func fifo(_ relative: String) throws {
            try #require(mkfifo(base + "/" + relative, 0o644) == 0, "mkfifo \(relative): \(errno)")
            created.append(base + "/" + relative)
        }
    }

    static let picture: [UInt8] = Array("not really a jpeg, but bytes".utf8)

    static func reader(_ tree: Tree, maxBytes: Int = 1_000) -> LocalFileReader {
        LocalFileReader(root: tree.root, maxBytes: maxBytes)
    }

    @Test func readsAFileInsideTheRoot() throws {
        // Given a file two levels under the root
        let tree = try Tree()
        try tree.directory("root/photos")
        try tree.file("root/photos/cat.jpg", Self.picture)

        // When reading it by its local:// URL
        let bytes = try Self.reader(tree).read("local:///photos/cat.jpg")

        // Then its bytes come back unchanged
        #expect(bytes == Self.picture)
    }

    @Test func pathIsPercentDecodedOnce() throws {
        let tree = try Tree()
        try tree.file("root/a b.jpg", Self.picture)
        try tree.file("root/100%.jpg", [1, 2, 3])

        #expect(try Self.reader(tree).read("local:///a%20b.jpg") == Self.picture)
        #expect(try Self.reader(tree).read("local:///100%25.jpg") == [1, 2, 3])
        // the slash is checked after decoding, like everything else
        #expect(try Self.reader(tree).read("local://%2fa%20b.jpg") == Self.picture)
        #expect(throws: FetchFailure.sourceNotFound) { try Self.reader(tree).read("local:///100%2525.jpg") }
    }

    @Test func emptyFileIsRead() throws {
        let tree = try Tree()
        try tree.file("root/empty.jpg", [])

        #expect(try Self.reader(tree).read("local:///empty.jpg") == [])
    }

    @Test(arguments: [
        "local:///../root2/secret.jpg",
        "local:///photos/../../root2/secret.jpg",
        "local:///photos/..",
        "local:///..",
        "local:///%2e%2e/root2/secret.jpg",
        "local:///%2E%2E/root2/secret.jpg",
        "local:///.%2e/root2/secret.jpg",
        "local:///photos%2f..%2f..%2froot2/secret.jpg",
    ])
    func dotDotIsForbidden(_ url: String) throws {
        // Given a file beside the root that `..` would reach
        let tree = try Tree()
        try tree.directory("root/photos")
        try tree.file("root2/secret.jpg", Self.picture)

        #expect(throws: FetchFailure.forbidden("local source path contains ..")) { try Self.reader(tree).read(url) }
    }

    @Test func symlinkOutOfTheRootIsForbidden() throws {
        // Given symlinks inside the root to a file and a directory outside it
        let tree = try Tree()
        try tree.symlink("root/host", to: "/etc/hostname")
        try tree.symlink("root/etc", to: "/etc")
        try tree.file("root2/secret.jpg", Self.picture)
        try tree.symlink("root/sibling.jpg", to: "../root2/secret.jpg")
        try tree.symlink("root/sibling", to: tree.base + "/root2")

        // Then each is refused: realpath lands outside the root (root2 only shares its name's start)
        for url in ["local:///host", "local:///etc/hostname", "local:///sibling.jpg", "local:///sibling/secret.jpg"] {
            #expect(throws: FetchFailure.forbidden("local source is outside the local filesystem root"), "\(url)") {
                try Self.reader(tree).read(url)
            }
        }
    }

    @Test func symlinkToAnotherFileInsideIsRead() throws {
        let tree = try Tree()
        try tree.directory("root/photos")
        try tree.file("root/photos/cat.jpg", Self.picture)
        try tree.symlink("root/latest.jpg", to: "photos/cat.jpg")
        try tree.symlink("root/album", to: tree.root + "/photos")

        #expect(try Self.reader(tree).read("local:///latest.jpg") == Self.picture)
        #expect(try Self.reader(tree).read("local:///album/cat.jpg") == Self.picture)
    }

    @Test func rootThatIsASymlinkIsResolved() throws {
        // Given a root named through a symlink (a release directory, say)
        let tree = try Tree()
        try tree.file("root/cat.jpg", Self.picture)
        try tree.symlink("current", to: "root")

        let reader = LocalFileReader(root: tree.base + "/current", maxBytes: 1_000)

        #expect(try reader.read("local:///cat.jpg") == Self.picture)
    }

    @Test(arguments: [
        "local:///missing.jpg", "local:///photos/missing.jpg", "local:///missing/cat.jpg", "local:///cat.jpg/x",
        "local:///dangling.jpg",
    ])
    func missingFileIsNotFound(_ url: String) throws {
        let tree = try Tree()
        try tree.directory("root/photos")
        try tree.file("root/cat.jpg", Self.picture)
        try tree.symlink("root/dangling.jpg", to: "nowhere.jpg")

        #expect(throws: FetchFailure.sourceNotFound) { try Self.reader(tree).read(url) }
    }

    @Test func directoryIsNotFound() throws {
        let tree = try Tree()
        try tree.directory("root/photos")

        #expect(throws: FetchFailure.sourceNotFound) { try Self.reader(tree).read("local:///photos") }
        #expect(throws: FetchFailure.sourceNotFound) { try Self.reader(tree).read("local:///photos/") }
    }

    @Test func fifoIsNotFoundAndDoesNotBlock() throws {
        // opening a FIFO for reading would wait for a writer forever
        let tree = try Tree()
        try tree.fifo("root/pipe.jpg")

        #expect(throws: FetchFailure.sourceNotFound) { try Self.reader(tree).read("local:///pipe.jpg") }
    }

    @Test func fileOverTheLimitIsTooLarge() throws {
        // Given files of exactly the limit and one byte over it
        let tree = try Tree()
        try tree.file("root/fits.jpg", [UInt8](repeating: 7, count: 10))
        try tree.file("root/big.jpg", [UInt8](repeating: 7, count: 11))
        let reader = Self.reader(tree, maxBytes: 10)

        #expect(try reader.read("local:///fits.jpg").count == 10)
        #expect(throws: FetchFailure.sourceTooLarge(limit: 10)) { try reader.read("local:///big.jpg") }
    }

    @Test(arguments: ["local://relative.jpg", "local://cat.jpg", "local://host/cat.jpg", "local://", "local://.jpg"])
    func pathWithoutLeadingSlashIsForbidden(_ url: String) throws {
        let tree = try Tree()
        try tree.file("root/cat.jpg", Self.picture)
        try tree.file("root/relative.jpg", Self.picture)

        #expect(throws: FetchFailure.forbidden("local source path must start with /")) { try Self.reader(tree).read(url) }
    }

    @Test(arguments: ["local:///cat.jpg%00", "local:///cat.jpg%00.png", "local:///%00"])
    func nulIsForbidden(_ url: String) throws {
        let tree = try Tree()
        try tree.file("root/cat.jpg", Self.picture)

        #expect(throws: FetchFailure.forbidden("local source path contains NUL")) { try Self.reader(tree).read(url) }
    }

    @Test func theRootItselfIsNotASource() throws {
        let tree = try Tree()

        #expect(throws: FetchFailure.forbidden("local source is outside the local filesystem root")) {
            try Self.reader(tree).read("local:///")
        }
    }

    @Test(arguments: ["local:///%zz.jpg", "local:///cat%2", "local:///cat%"])
    func badPercentEncodingIsABadRequest(_ url: String) throws {
        let tree = try Tree()

        #expect(throws: FetchFailure.badRequest("invalid percent-encoding in local source path")) {
            try Self.reader(tree).read(url)
        }
    }

    @Test func missingRootIsThumbdsFailureNotTheClients() throws {
        let tree = try Tree()
        let reader = LocalFileReader(root: tree.base + "/gone", maxBytes: 1_000)

        #expect(throws: FetchFailure.self) { try reader.read("local:///cat.jpg") }
        do {
            _ = try reader.read("local:///cat.jpg")
        } catch {
            #expect(error.kind == "internal")
        }
    }

    @Test func withoutARootLocalSourcesAreForbidden() {
        #expect(LocalFileReader.notEnabled == .forbidden("local sources are not enabled"))
        #expect(LocalFileReader.isLocal("local:///cat.jpg"))
        #expect(!LocalFileReader.isLocal("https://example.com/local:///cat.jpg"))
    }
}
