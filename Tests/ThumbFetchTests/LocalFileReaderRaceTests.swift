import Foundation
import Synchronization
import Testing
import ThumbdTestSupport

/// A directory on a `local://` path swapped for a symlink out of the root between the reader's
/// realpath and its open: the open must refuse the symlink, not follow it out.
@Suite(.blocking, .timeLimit(.minutes(2)))
struct LocalFileReaderRaceTests {
    @Test func directorySwappedForASymlinkNeverLeadsOutOfTheRoot() throws {
        // Given root/photos/cat.jpg, and beside the root a secret at the same name under root2
        let tree = try LocalFileReaderTests.Tree()
        try tree.directory("root/photos")
        try tree.file("root/photos/cat.jpg", LocalFileReaderTests.picture)
        let secret = Array("the secret outside the root".utf8)
        try tree.file("root2/cat.jpg", secret)
        try tree.symlink("root/escape", to: tree.base + "/root2")
        let reader = LocalFileReaderTests.reader(tree)

        // When a thread keeps swapping root/photos with the symlink while reads run
        let stop = Mutex(false)
        let swaps = Thread.runDetached { [root = tree.root] in
            var count = 0
            while !stop.withLock({ $0 }) {
                rename(root + "/photos", root + "/held")
                rename(root + "/escape", root + "/photos")
                rename(root + "/photos", root + "/escape")
                rename(root + "/held", root + "/photos")
                count += 1
            }
            return count
        }
        var inside = 0, leaked = 0
        let deadline = Date().addingTimeInterval(3)
        while Date() < deadline {
            guard let bytes = try? reader.read("local:///photos/cat.jpg") else { continue }
            if bytes == secret { leaked += 1 } else if bytes == LocalFileReaderTests.picture { inside += 1 }
        }
        stop.withLock { $0 = true }

        // Then no read ever returned the outside file, while reads inside went on working
        #expect(try swaps.value() > 0)
        #expect(leaked == 0)
        #expect(inside > 0)
    }
}
