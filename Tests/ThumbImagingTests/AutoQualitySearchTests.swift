import Testing
@testable import ThumbImaging
@testable import ThumbRequest
@testable import ThumbRuntime

/// The search over qualities, with an encoder double whose bytes grow and whose DSSIM falls with
/// the quality, counting its encodes.
@Suite(.timeLimit(.minutes(1)))
struct AutoQualitySearchTests {
    /// Quality q encodes to 100 q bytes; its DSSIM is (100 - q) / 1000.
    final class Encoder: @unchecked Sendable {
        var encodes: [Int] = []

        func search(_ method: AutoQuality.Method, target: Double, allowedError: Double = 0,
                    qualities: ClosedRange<Int> = 70...80) throws -> AutoQualitySearch.Result {
            try AutoQualitySearch(
                method: method, target: target, allowedError: allowedError, qualities: qualities,
                deadline: RenderDeadline(seconds: 60),
                encode: { quality, _ in
                    self.encodes.append(quality)
                    return [UInt8](repeating: UInt8(quality), count: 100 * quality)
                },
                score: { _, _, bytes in Double(100 - Int(bytes[0])) / 1000 }
            ).run()
        }
    }

    /// Curves that bend as encoders' do, over 800 pixels: quality q at 4:2:0 is 100 q bytes (q bits
    /// per pixel), DSSIM (100 - q)^2 / 100,000; 4:4:4 is 120 q bytes, with the DSSIM 4:2:0 has
    /// 15 qualities higher. Counts encodes and scores by chroma.
    final class ChromaEncoder: @unchecked Sendable {
        var encodes: [(quality: Int, fullChroma: Bool)] = []
        var scored: [(quality: Int, fullChroma: Bool)] = []

        static func dssim(quality: Int, fullChroma: Bool) -> Double {
            let equivalent = Double(min(100, quality + (fullChroma ? 15 : 0)))
            return (100 - equivalent) * (100 - equivalent) / 100_000
        }

        func search(target: Double, slope: Double, bothChromas: Bool,
                    qualities: ClosedRange<Int> = 45...76) throws -> AutoQualitySearch.Result {
            try AutoQualitySearch(
                method: .dssim, target: target, allowedError: 0, qualities: qualities, slope: slope, pixels: 800,
                chromas: bothChromas ? [{ _ in true }, { _ in false }] : [{ _ in false }],
                deadline: RenderDeadline(seconds: 60),
                encode: { quality, fullChroma in
                    self.encodes.append((quality, fullChroma))
                    return [UInt8(quality), fullChroma ? 1 : 0] + [UInt8](repeating: 0, count: (fullChroma ? 120 : 100) * quality - 2)
                },
                score: { _, _, bytes in
                    self.scored.append((Int(bytes[0]), bytes[1] == 1))
                    return Self.dssim(quality: Int(bytes[0]), fullChroma: bytes[1] == 1)
                }
            ).run()
        }
    }

    @Test(arguments: [(7_450, 74), (7_499, 74), (7_500, 75), (8_000, 80), (100_000, 80), (6_999, 70), (10, 70)])
    func sizeTakesTheLargestQualityThatFitsElseTheLowest(target: Int, quality: Int) throws {
        let encoder = Encoder()
        let found = try encoder.search(.size, target: Double(target))

        #expect(found.chosen.quality == quality)
        #expect(found.bytes.count == 100 * quality)
        #expect(found.chosen.encodes <= 5, "\(encoder.encodes)")
        #expect(Set(encoder.encodes).count == encoder.encodes.count, "no quality encoded twice: \(encoder.encodes)")
    }

    @Test(arguments: [(0.025, 75), (0.0251, 75), (0.0249, 76), (0.030, 70), (0.5, 70), (0.020, 80), (0.001, 80)])
    func dssimTakesTheLowestQualityWithinTheTargetElseTheHighest(target: Double, quality: Int) throws {
        let encoder = Encoder()
        let found = try encoder.search(.dssim, target: target)

        #expect(found.chosen.quality == quality)
        #expect(found.chosen.encodes <= 5, "\(encoder.encodes)")
    }

    @Test func dssimStopsAtTheFirstQualityWithinTheAllowedError() throws {
        // 75 is the first tried; its 0.025 is within 0.002 of 0.026: no lower quality is tried
        let encoder = Encoder()
        let found = try encoder.search(.dssim, target: 0.026, allowedError: 0.002)

        #expect(found.chosen.quality == 75)
        #expect(encoder.encodes == [75])
    }

    @Test(arguments: [AutoQuality.Method.size, .dssim])
    func noCandidatePassingStillStaysWithinTheEncodeBudget(method: AutoQuality.Method) throws {
        // Given targets nothing meets: size's falls back to the lowest quality, dssim's to the highest
        let encoder = Encoder()
        let found = try encoder.search(method, target: method == .size ? 1 : 0.0001, qualities: 1...100)

        #expect(found.chosen.quality == (method == .size ? 1 : 100))
        #expect(encoder.encodes.count <= AutoQualitySearch.maxEncodes, "\(encoder.encodes)")
    }

    @Test func aWideRangeIsSearchedWithinTheEncodeBudget() throws {
        let encoder = Encoder()
        let found = try encoder.search(.size, target: 5_555, qualities: 1...100)

        #expect(encoder.encodes.count <= AutoQualitySearch.maxEncodes)
        #expect(found.bytes.count <= 5_555)
        #expect(found.chosen.quality >= 50, "within the search's resolution of 55: \(encoder.encodes)")
    }

    @Test(arguments: [(0.0, 60), (1_600, 70), (5_000, 75)])
    func aSlopeRaisesTheTargetsQualityWhileDSSIMIsWorthItsBits(slope: Double, quality: Int) throws {
        // Given a target 4:2:0 first meets at q60, where 5 qualities more cost 5 bits per pixel and
        // buy 5 (195 - 2q) / 100,000 of DSSIM: at 1,600 worth it from q60 and q65, not from q70; at
        // 5,000 from every quality the walk reaches
        let encoder = ChromaEncoder()
        let found = try encoder.search(target: 0.016, slope: slope, bothChromas: false)

        // Then the walk stops where the next step is dearer than the slope, or at its last step
        #expect(found.chosen.quality == quality, "\(encoder.encodes)")
        #expect(found.chosen.dssim == ChromaEncoder.dssim(quality: quality, fullChroma: false))
        #expect(found.chosen.encodes <= AutoQualitySearch.maxEncodes + AutoQualitySearch.maxSlopeSteps)
    }

    @Test func withASlopeEachChromaIsSearchedAndTheCheaperKept() throws {
        // Given 4:4:4 meeting the target at q45 (5,400 bytes), 4:2:0 at q60 (6,000 bytes)
        let both = ChromaEncoder()
        let found = try both.search(target: 0.016, slope: 1, bothChromas: true)

        #expect((found.chosen.quality, found.chosen.fullChroma) == (45, true))
        #expect(found.bytes.count == 120 * 45)
        #expect(Set(both.encodes.map(\.fullChroma)) == [true, false])
        #expect(found.chosen.encodes == both.encodes.count)
        #expect(both.encodes.count <= 2 * (AutoQualitySearch.maxEncodes + AutoQualitySearch.maxSlopeSteps))
        // 4:2:0 searched second: a candidate whose bits alone cost more than 4:4:4 at q45 (54 bits
        // per pixel and 0.016 of DSSIM at the slope's price) is never scored
        let secondScored = both.scored.filter { !$0.fullChroma }.map(\.quality)
        #expect(!secondScored.isEmpty && secondScored.allSatisfy { $0 <= 54 }, "\(secondScored)")

        // and one chroma searched alone never tries the other
        let one = ChromaEncoder()
        let ruled = try one.search(target: 0.016, slope: 1, bothChromas: false)
        #expect((ruled.chosen.quality, ruled.chosen.fullChroma) == (60, false))
        #expect(one.encodes.allSatisfy { !$0.fullChroma })
    }

    @Test func withNoChromaWithinTheTargetTheHighestQualityWithTheLeastDSSIMIsKept() throws {
        // Given a target neither chroma meets, whose highest quality 4:4:4 comes nearest
        let encoder = ChromaEncoder()
        let found = try encoder.search(target: 0.000_01, slope: 40, bothChromas: true, qualities: 1...80)

        #expect((found.chosen.quality, found.chosen.fullChroma) == (80, true))
        #expect(found.chosen.dssim == ChromaEncoder.dssim(quality: 80, fullChroma: true))
        #expect(encoder.encodes.count <= 2 * AutoQualitySearch.maxEncodes, "\(encoder.encodes)")
    }

    /// A clock the doubles move: a render's deadline passes at the step a test chooses.
    final class Clock: @unchecked Sendable {
        var now: UInt64 = 1_000_000_000
    }

    /// `dssim` over 1...100, the clock a second on at the `lateEncode`-th encode (1-based) or the
    /// `lateScore`-th score, with a deadline of half a second: counts what ran.
    static func searchPastItsDeadline(lateEncode: Int = .max, lateScore: Int = .max)
        throws(ImagingFailure) -> (encodes: Int, scores: Int) {
        let clock = Clock()
        let deadline = RenderDeadline(seconds: 0.5, now: { clock.now })
        var (encodes, scores) = (0, 0)
        do throws(ImagingFailure) {
            _ = try AutoQualitySearch(
                method: .dssim, target: 0.0001, allowedError: 0, qualities: 1...100, deadline: deadline,
                encode: { quality, _ in
                    encodes += 1
                    if encodes == lateEncode { clock.now += 1_000_000_000 }
                    return [UInt8(quality)]
                },
                score: { _, _, bytes in
                    scores += 1
                    if scores == lateScore { clock.now += 1_000_000_000 }
                    return Double(100 - Int(bytes[0])) / 1000
                }
            ).run()
        } catch {
            #expect(error == deadline.error)
            return (encodes, scores)
        }
        Issue.record("the search ended after its deadline without its error: \(encodes) encodes, \(scores) scores")
        return (encodes, scores)
    }

    @Test func aDeadlinePassingDuringAnEncodeEndsTheSearchBeforeItsScore() throws {
        // Given a search whose first encode takes past the render's deadline
        // When it runs, then it ends with the deadline's error, the candidate not scored
        let ran = try Self.searchPastItsDeadline(lateEncode: 1)
        #expect(ran.encodes == 1)
        #expect(ran.scores == 0)
    }

    @Test func aDeadlinePassingDuringAScoreEndsTheSearchBeforeTheNextEncode() throws {
        // Given a search whose second score takes past the deadline, with more candidates to go
        // When it runs, then no further candidate is encoded
        let ran = try Self.searchPastItsDeadline(lateScore: 2)
        #expect(ran.encodes == 2)
        #expect(ran.scores == 2)
    }
}
