import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbRuntime

/// `thumbd cache verify` prints names it read from disk: escaped, so a name cannot drive the
/// operator's terminal.
@Suite(.blocking, .timeLimit(.minutes(1)))
struct CacheVerifyCommandTests {
    @Test func aTempFileNamedWithATerminalEscapeIsPrintedEscaped() throws {
        // Given a temp file left by a dead writer, whose name retitles a terminal window and
        // clears its screen
        let cache = try TestCache()
        _ = try cache.index()
        let name = "\(FileSystem.tempPrefix)\(TestCache.deadPID)-\u{1B}]2;owned\u{07}\u{1B}[2J"
        try cache.write("/served/t/" + name, bytes: 5)

        // When verify lists it
        let (status, text) = try TestStack.thumbdCommand(["cache", "verify"], environment: [
            "THUMBD_CACHE_ROOT": cache.root, "THUMBD_CACHE_INDEX": cache.indexPath, "THUMBD_INSECURE": "true",
        ])

        // Then it is named with its escapes written out, and no control character reaches the output
        #expect(status == 1, "\(text)")
        #expect(text.contains("temp files: 1"), "\(text)")
        #expect(text.contains("-\\x1b]2;owned\\x07\\x1b[2J"), "\(text)")
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(text.debugDescription)")
    }
}
