import Testing
@testable import ThumbOps

/// What `thumbd warm` counts, how it sums it up, and what it shows while it works.
@Suite(.timeLimit(.minutes(2)))
struct WarmTallyTests {
    static func tally(_ total: Int, _ results: [WarmResult]) -> WarmTally {
        var tally = WarmTally(total: total)
        for result in results { tally.add(result) }
        return tally
    }

    @Test func failuresAreCountedByStatusInOrderThenConnectionErrors() {
        // Given every kind of result
        let tally = Self.tally(10, [
            .made, .made, .alreadyCached, .failed(status: 422), .failed(status: 404), .unreachable("Couldn't connect to server"),
            .failed(status: 404), .failed(status: 404), .unreachable("Timeout was reached"),
        ])

        // Then
        #expect((tally.made, tally.alreadyCached, tally.failed, tally.done) == (2, 1, 6, 9))
        #expect(tally.failures == "404: 3, 422: 1, connection errors: 2")
        #expect(tally.summary(duplicates: 1, seconds: 2.345, interrupted: false) == """
            made 2, already cached 1, failed 6 (404: 3, 422: 1, connection errors: 2)
            9 of 10 thumbnails in 2.3 s, 1 duplicate skipped
            """)
    }

    @Test func aCompleteRunSaysHowManyWithoutFailures() {
        let tally = Self.tally(2, [.made, .alreadyCached])

        #expect(tally.summary(duplicates: 0, seconds: 0.04, interrupted: false) == """
            made 1, already cached 1, failed 0
            2 thumbnails in 0.0 s
            """)
    }

    @Test func anInterruptedRunSaysWhatWasNotAskedForAndWhatWasAbandoned() {
        let tally = Self.tally(40, [.made, .made, .abandoned])

        #expect(tally.summary(duplicates: 0, seconds: 3, interrupted: true) == """
            made 2, already cached 0, failed 0
            3 of 40 thumbnails in 3.0 s
            interrupted: 37 not asked for, 1 abandoned in flight
            """)
    }

    @Test func eachResultIsOneLineThatStartsWithWhatHappened() {
        #expect(WarmProgress.line("/s/p", .made) == "made /s/p")
        #expect(WarmProgress.line("/s/p", .alreadyCached) == "cached /s/p")
        #expect(WarmProgress.line("/s/p", .failed(status: 404)) == "failed 404 /s/p")
        #expect(WarmProgress.line("/s/p", .unreachable("Timeout was reached")) == "failed (Timeout was reached) /s/p")
        #expect(WarmProgress.line("/s/p", .abandoned) == "abandoned /s/p")
    }

    @Test(arguments: [20, 60, 80, 200])
    func theBarFillsAsThumbnailsAreDoneAndNeverWraps(columns: Int) {
        // Given a quarter done, then all
        let quarter = Self.tally(8, [.made, .failed(status: 404)])
        let all = Self.tally(8, Array(repeating: .alreadyCached, count: 8))

        // Then the bar is a quarter full, then full, and always narrower than the terminal
        let start = WarmProgress.bar(quarter, columns: columns)
        let end = WarmProgress.bar(all, columns: columns)
        #expect(start.count < columns && end.count < columns)
        let inside = start.dropFirst().prefix { $0 != "]" }
        #expect(inside.filter { $0 == "#" }.count == inside.count / 4)
        #expect(!end.contains("."))
        if columns >= 80 {
            #expect(start.hasSuffix("] 2/8  made 1  cached 0  failed 1"))
        }
    }
}
