import Foundation
import Testing
import ThumbdTestSupport

/// `thumbd cache replay`: exactly two lines on stdout, with ratios counted by hand.
@Suite(.blocking, .timeLimit(.minutes(1)))
struct CacheReplayCommandTests {
    /// Two thumbnails asked for twice, a crawler's five, then the two again: 1000-byte files (two
    /// 512-byte blocks each), and 3500 bytes with a low water of 99 % hold three. lru: the crawler
    /// pushes both out, 9 misses of 11; probation: its thumbnails replace each other, 7 of 11.
    static let trace = "h1 1000\nh2 1000\nh1 1000\nh2 1000\ns1 1000\ns2 1000\ns3 1000\ns4 1000\ns5 1000\nh1 1000\nh2 1000\n"

    @Test(arguments: [("lru", "0.8182"), ("probation", "0.6364")])
    func printsTheObjectAndByteMissRatios(policy: String, ratio: String) throws {
        let directory = try TestDirectory()
        let path = directory.path + "/trace"
        try Self.trace.write(toFile: path, atomically: true, encoding: .utf8)

        let run = try ProcessRunner.run(TestStack.thumbdBinary, [
            "cache", "replay", path, "--bytes", "3500", "--low-water", "99", "--policy", policy,
        ], environment: ["PATH": "/usr/bin:/bin"])

        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == "object miss ratio \(ratio)\nbyte miss ratio \(ratio)\n")
    }

    @Test func refusesAnUnknownPolicy() throws {
        let run = try ProcessRunner.run(TestStack.thumbdBinary, ["cache", "replay", "/dev/null", "--bytes", "1", "--policy", "fifo"],
                                        environment: ["PATH": "/usr/bin:/bin"])
        #expect(run.status != 0)
        #expect(run.errors.contains("probation or lru"))
    }
}
