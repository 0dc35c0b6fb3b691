import Testing
import ThumbdTestSupport
import ThumbRuntime

/// thumbd's threads are started, named and known in one place, until they end.
@Suite(.blocking, .timeLimit(.minutes(1)))
struct OwnedThreadTests {
    @Test func aThreadIsKnownByItsRolesNameUntilItEnds() {
        // Given a numbered thread that waits to be let go
        let release = Monitor(false)
        let thread = OwnedThread.start(.warm, number: 7) {
            release.wait { $0 ? .done(()) : .sleep() }
        }

        // Then it is known by its role's name while it runs
        #expect(thread.name == "thumbd-warm-7")
        #expect(OwnedThread.runningNames.contains("thumbd-warm-7"))

        // When it is let go and joined, it is no longer known
        release.withLock(waking: .everyone) { $0 = true }
        thread.join()
        #expect(!OwnedThread.runningNames.contains("thumbd-warm-7"))
    }
}
