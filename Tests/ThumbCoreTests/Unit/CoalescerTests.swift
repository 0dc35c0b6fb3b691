import Testing
@testable import ThumbCore

/// One job per key: the first request leads, the others wait for its outcome.
struct CoalescerTests {
    typealias StringCoalescer = Coalescer<String, Int, String>

    /// Counts followers that have resumed, to show none resumes before the leader finishes.
    actor Tally {
        private(set) var count = 0
        func add() { count += 1 }
    }

    /// Polls until `condition` holds; false after about ten seconds.
    static func eventually(_ condition: () async -> Bool) async throws -> Bool {
        for _ in 0..<10_000 {
            if await condition() { return true }
            try await Task.sleep(for: .milliseconds(1))
        }
        return await condition()
    }

    @Test func firstJoinLeadsWithoutReceipt() async {
        let coalescer = StringCoalescer()

        let role = await coalescer.join("photo")

        guard case .leader(previous: nil) = role else {
            Issue.record("expected a leader without receipt, got \(role)")
            return
        }
        #expect(await coalescer.jobsStarted == 1)
        #expect(await coalescer.requestsJoined == 0)
    }

    @Test func fiftyConcurrentJoinsFollowTheLeader() async throws {
        // Given a leader that has not finished
        let coalescer = StringCoalescer()
        guard case .leader = await coalescer.join("photo") else {
            Issue.record("first join did not lead")
            return
        }

        // When 50 more requests join concurrently
        let resumed = Tally()
        let followers = Task {
            await withTaskGroup(of: Int?.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        let role = await coalescer.join("photo")
                        await resumed.add()
                        guard case .follower(let outcome) = role else { return nil }
                        return outcome
                    }
                }
                return await group.reduce(into: [Int?]()) { $0.append($1) }
            }
        }

        // Then all 50 are waiting, and none has resumed before the leader finishes
        #expect(try await Self.eventually { await coalescer.requestsJoined == 50 }, "not all 50 joined")
        #expect(await resumed.count == 0)
        #expect(await coalescer.jobsStarted == 1)

        await coalescer.finish("photo", with: 42, receipt: "/cache/photo.webp")
        let outcomes = await followers.value

        #expect(outcomes == Array(repeating: 42, count: 50))
        #expect(await resumed.count == 50)
        #expect(await coalescer.jobsStarted == 1)
        #expect(await coalescer.requestsJoined == 50)

        // And the next request leads a new job, told where the last one stored its result
        let next = await coalescer.join("photo")
        guard case .leader(previous: "/cache/photo.webp"?) = next else {
            Issue.record("expected a leader with the receipt, got \(next)")
            return
        }
        #expect(await coalescer.jobsStarted == 2)
    }

    @Test func otherKeysDoNotWait() async {
        let coalescer = StringCoalescer()
        _ = await coalescer.join("a")

        let role = await coalescer.join("b")

        guard case .leader(previous: nil) = role else {
            Issue.record("a second key should lead its own job, got \(role)")
            return
        }
        #expect(await coalescer.jobsStarted == 2)
    }

    @Test func finishWithoutReceiptLeavesNone() async {
        let coalescer = StringCoalescer()
        _ = await coalescer.join("photo")

        await coalescer.finish("photo", with: 0, receipt: nil)
        let role = await coalescer.join("photo")

        guard case .leader(previous: nil) = role else {
            Issue.record("expected a leader without receipt, got \(role)")
            return
        }
    }

    @Test func failureReachesFollowers() async throws {
        // Given a leader and a follower waiting on it
        let coalescer = Coalescer<String, Result<Int, ThumbError>, String>()
        _ = await coalescer.join("photo")
        let follower = Task { await coalescer.join("photo") }
        #expect(try await Self.eventually { await coalescer.requestsJoined == 1 })

        // When the job fails
        await coalescer.finish("photo", with: .failure(.sourceNotFound), receipt: nil)

        // Then the follower gets the same failure
        guard case .follower(.failure(.sourceNotFound)) = await follower.value else {
            Issue.record("follower did not get the failure")
            return
        }
    }

    @Test func receiptsAreBoundedOldestFirst() async {
        // Given room for two receipts and three finished jobs
        let coalescer = StringCoalescer(recentCapacity: 2)
        for key in ["a", "b", "c"] {
            _ = await coalescer.join(key)
            await coalescer.finish(key, with: 0, receipt: "receipt \(key)")
        }

        // Then the oldest receipt is gone and the two newest remain
        let roles = [await coalescer.join("a"), await coalescer.join("b"), await coalescer.join("c")]
        let previous = roles.map { role -> String?? in
            guard case .leader(let previous) = role else { return .none }
            return .some(previous)
        }
        #expect(previous == [.some(nil), .some("receipt b"), .some("receipt c")])
    }

    @Test func renewingAReceiptKeepsItsKeyOnce() async {
        // Given room for two receipts, and "a" finished twice
        let coalescer = StringCoalescer(recentCapacity: 2)
        for key in ["a", "a", "b"] {
            _ = await coalescer.join(key)
            await coalescer.finish(key, with: 0, receipt: "receipt \(key)")
        }

        // Then both keys still have their receipt: "a" took one slot, not two
        guard case .leader(previous: "receipt a"?) = await coalescer.join("a"),
              case .leader(previous: "receipt b"?) = await coalescer.join("b")
        else {
            Issue.record("a renewed receipt took a second slot")
            return
        }
    }
}
