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
                encode: { quality in
                    self.encodes.append(quality)
                    return [UInt8](repeating: UInt8(quality), count: 100 * quality)
                },
                score: { bytes in Double(100 - Int(bytes[0])) / 1000 }
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
}
