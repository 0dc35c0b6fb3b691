import ThumbRequest
import ThumbRuntime

/// The search autoquality runs over one image's qualities: a binary search, at most `maxEncodes`
/// encodes (11 qualities, imgproxy's default 70...80, take at most 4 or 5). Kept apart from the
/// encoder and the metric, which it is given, so it is tested with counting doubles.
struct AutoQualitySearch {
    /// Counting the bound the search falls back to while no candidate has passed: 32 qualities
    /// are searched exactly, a wider range to within a quality or two.
    static let maxEncodes = 6

    let method: AutoQuality.Method
    let target: Double
    let allowedError: Double
    let qualities: ClosedRange<Int>
    let encode: (Int) throws(ThumbError) -> [UInt8]
    /// The DSSIM of an encoded candidate against the unencoded image; only `dssim` calls it.
    let score: ([UInt8]) throws(ThumbError) -> Double

    struct Result {
        let chosen: ChosenQuality
        let bytes: [UInt8]
    }

    /// `size`: the largest quality whose bytes are at most the target, else the lowest quality.
    /// `dssim`: the lowest whose DSSIM is at most the target plus the allowed error, stopping at
    /// the first within the allowed error of the target, else the highest quality.
    func run() throws(ThumbError) -> Result {
        var encoded: [Int: [UInt8]] = [:]
        var scores: [Int: Double] = [:]
        func candidate(_ quality: Int) throws(ThumbError) -> [UInt8] {
            if let bytes = encoded[quality] { return bytes }
            let bytes = try encode(quality)
            encoded[quality] = bytes
            return bytes
        }
        var low = qualities.lowerBound, high = qualities.upperBound
        var best: Int?
        searching: while low <= high, encoded.count < Self.maxEncodes - (best == nil ? 1 : 0) {
            switch method {
            case .size:
                let middle = (low + high + 1) / 2
                if Double(try candidate(middle).count) <= target {
                    best = middle
                    low = middle + 1
                } else {
                    high = middle - 1
                }
            case .dssim:
                let middle = (low + high) / 2
                let dssim = try score(try candidate(middle))
                scores[middle] = dssim
                if dssim <= target + allowedError {
                    best = middle
                    if dssim >= target - allowedError { break searching }
                    high = middle - 1
                } else {
                    low = middle + 1
                }
            case .none:
                preconditionFailure("autoquality is off")
            }
        }
        let quality = best ?? (method == .size ? qualities.lowerBound : qualities.upperBound)
        let bytes = try candidate(quality)
        let chosen = ChosenQuality(quality: quality, encodes: encoded.count, dssim: scores[quality])
        return Result(chosen: chosen, bytes: bytes)
    }
}

/// What autoquality chose for a thumbnail: for `thumbd render` to print and bench/quality to read.
public struct ChosenQuality: Sendable, Hashable {
    public let quality: Int
    public let encodes: Int
    /// The chosen quality's DSSIM, where the search scored it.
    public let dssim: Double?
}
