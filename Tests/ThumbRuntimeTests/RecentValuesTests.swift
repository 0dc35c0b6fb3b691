import Testing
@testable import ThumbRuntime

/// Only the last keys are kept, however many times the ring of keys has gone round; a key kept
/// again gets its new value without moving.
@Suite(.timeLimit(.minutes(2)))
struct RecentValuesTests {
    @Test func onlyTheLastKeysAreKeptRoundAfterRound() {
        // Given room for 3
        var recent = RecentValues<Int, String>(capacity: 3)

        // When 10 keys come, one after another
        for key in 0..<10 { recent.keep("v\(key)", for: key) }

        // Then the last 3 are kept, with their values, and no other
        #expect((0..<10).filter { recent[$0] != nil } == [7, 8, 9])
        #expect(recent[9] == "v9")
    }

    @Test func aKeyKeptAgainGetsItsNewValueAndKeepsItsPlace() {
        // Given keys 0, 1 and 2 in room for 3, and 0 kept again with a new value
        var recent = RecentValues<Int, String>(capacity: 3)
        for key in 0..<3 { recent.keep("v\(key)", for: key) }
        recent.keep("new", for: 0)
        #expect(recent[0] == "new")

        // When one more key comes
        recent.keep("v3", for: 3)

        // Then 0 went first all the same
        #expect(recent[0] == nil)
        #expect((1..<4).allSatisfy { recent[$0] != nil })
    }
}
