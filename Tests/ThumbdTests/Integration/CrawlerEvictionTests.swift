import Foundation
import Testing
import ThumbdTestSupport

/// Issue #36 with real nginx and thumbd: ten thumbnails people look at, then a crawler asking
/// once each for more thumbnails than the cache holds.
@Suite(.blocking, .serialized, .timeLimit(.minutes(5)))
struct CrawlerEvictionTests {
    let origin: TestOrigin

    init() throws {
        origin = try TestOrigin()
        origin.serve("/small.jpg", .image(TestImages.jpeg(width: 96, height: 96)))
    }

    /// probation keeps all ten; lru, the policy before it, evicts all ten (so the test can fail).
    @Test(arguments: [("probation", true), ("lru", false)])
    func aCrawlersSingleRequestsLeaveTheThumbnailsPeopleLookAt(policy: String, hotKept: Bool) throws {
        // Given a cache bounded to 120 thumbnails
        let stack = try TestStack(environment: TestStack.signing.merging([
            "THUMBD_CACHE_MAX_ENTRIES": "120", "THUMBD_CACHE_EVICTION_POLICY": policy,
        ]) { $1 })
        defer { stack.shutdown() }
        func path(_ number: Int) -> String {
            "/insecure/rs:fill:\(32 + number % 64):\(32 + number / 64):0/plain/\(origin.url("/small.jpg"))@webp"
        }

        // and ten thumbnails made, then served by nginx three times each, the hits counted
        let hot = Array(0..<10)
        for number in hot { #expect(try stack.get(path(number)).status == 200) }
        for _ in 0..<3 {
            for number in hot { #expect(try stack.get(path(number)).status == 200) }
        }
        #expect(stack.jobLogLines.count == 10)
        #expect(eventually(timeout: 20) { (try? stack.metrics()["thumbd_cache_hits_reported_total"]) == 30 })

        // When a crawler asks once each for 146 thumbnails nobody asked for before
        for number in 10..<156 { #expect(try stack.get(path(number)).status == 200) }

        // Then the cache is back within its bound,
        #expect(eventually(timeout: 20) { stack.cacheFiles().count <= 120 }, "\(stack.cacheFiles().count) files")
        // and the ten are all still stored (probation) or all evicted (lru)
        let files = Set(stack.cacheFiles())
        let kept = hot.filter { files.contains(stack.servedFile(path($0), format: "webp")) }
        // (a failure says what eviction and the scan did: it was seen once in a loaded full run)
        let upkeep = stack.thumbdLog.split(separator: "\n").filter { $0.contains("evict") || $0.contains("scan") || $0.contains("rebuild") }
        #expect(kept.count == (hotKept ? 10 : 0), "kept \(kept); thumbd logged:\n\(upkeep.joined(separator: "\n"))")
        #expect(try stack.cacheCommand(["verify"]).status == 0)
    }
}
