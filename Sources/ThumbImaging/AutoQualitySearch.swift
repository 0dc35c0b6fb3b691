import ThumbRequest
import ThumbRuntime

/// The search autoquality runs over one image's qualities: a binary search, at most `maxEncodes`
/// encodes (11 qualities, imgproxy's default 70...80, take at most 4 or 5). Kept apart from the
/// encoder and the metric, which it is given, so it is tested with counting doubles.
///
/// With a slope (`dssim` only), the quality the target gives is a floor: the search then walks
/// up from it, `slopeStep` qualities at a time, while a step lowers bits per pixel plus DSSIM
/// priced at the slope, and it runs once per chroma it is given, keeping the cheapest by that
/// price. A candidate whose bits alone cost more than what is already found is not scored.
struct AutoQualitySearch {
    /// Counting the bound the search falls back to while no candidate has passed: 32 qualities
    /// are searched exactly, a wider range to within a quality or two. Per chroma.
    static let maxEncodes = 6
    /// The walk's step and its most steps: curves measured on the corpus bend over 5 qualities,
    /// where one quality's difference is lost in the encoder's noise.
    static let slopeStep = 5
    static let maxSlopeSteps = 3

    let method: AutoQuality.Method
    let target: Double
    let allowedError: Double
    let qualities: ClosedRange<Int>
    /// Bits per pixel a fall of 1 in DSSIM is worth; 0: the quality the target gives.
    var slope = 0.0
    /// The image's pixels, so the slope prices bits per pixel.
    var pixels = 1
    /// Each chroma searched, as JPEG's 4:4:4 by quality: the options' rule alone, or with a
    /// slope both 4:4:4 and 4:2:0 throughout. Other formats ignore it.
    var chromas: [(Int) -> Bool] = [{ _ in false }]
    /// The render's: checked before each encode and each score, which ImageMagick does not all
    /// watch (libwebp's decoder, DSSIM), so a search past it ends within one of them.
    let deadline: RenderDeadline
    let encode: (_ quality: Int, _ fullChroma: Bool) throws(ImagingFailure) -> [UInt8]
    /// The DSSIM of a candidate, given its quality, chroma and bytes, against the unencoded
    /// image; only `dssim` calls it.
    let score: (_ quality: Int, _ fullChroma: Bool, _ bytes: [UInt8]) throws(ImagingFailure) -> Double

    struct Result {
        var chosen: ChosenQuality
        let bytes: [UInt8]
    }

    /// `size`: the largest quality whose bytes are at most the target, else the lowest quality.
    /// `dssim`: the lowest whose DSSIM is at most the target plus the allowed error, stopping at
    /// the first within the allowed error of the target, else the highest quality; with a slope,
    /// the cheapest by the slope's price of the chromas' walks up from there, else the highest
    /// quality of the chroma with the least DSSIM there.
    func run() throws(ImagingFailure) -> Result {
        var curves: [Curve] = []
        for fullChroma in chromas {
            var curve = Curve(search: self, fullChroma: fullChroma)
            try curve.run(dearerThan: curves.compactMap(\.best).map(cost).min())
            curves.append(curve)
        }
        let chosen: Curve.Point
        if let cheapest = curves.compactMap(\.best).min(by: { cost($0) < cost($1) }) {
            chosen = cheapest
        } else if curves.count == 1 {
            chosen = try curves[0].point(method == .size ? qualities.lowerBound : qualities.upperBound)
        } else {
            var tops: [Curve.Point] = []
            for index in curves.indices { tops.append(try curves[index].scoredPoint(qualities.upperBound)) }
            chosen = tops.min { ($0.dssim ?? .infinity) < ($1.dssim ?? .infinity) }!
        }
        let encodes = curves.map(\.encoded.count).reduce(0, +)
        return Result(chosen: ChosenQuality(quality: chosen.quality, encodes: encodes, dssim: chosen.dssim,
                                            fullChroma: chosen.fullChroma),
                      bytes: chosen.bytes)
    }

    /// Bits per pixel plus DSSIM at the slope's price: what the walk and the choice of chroma lower.
    private func cost(_ point: Curve.Point) -> Double {
        bitsPerPixel(point) + slope * (point.dssim ?? 0)
    }

    /// A cost's lower bound, known before the candidate is scored.
    private func bitsPerPixel(_ point: Curve.Point) -> Double {
        Double(8 * point.bytes.count) / Double(max(pixels, 1))
    }

    /// One chroma's candidates, each encoded and scored at most once, and what its search found.
    private struct Curve {
        struct Point {
            let quality: Int
            let fullChroma: Bool
            let bytes: [UInt8]
            let dssim: Double?
        }

        let search: AutoQualitySearch
        let fullChroma: (Int) -> Bool
        var encoded: [Int: [UInt8]] = [:]
        var scores: [Int: Double] = [:]
        var best: Point?

        mutating func point(_ quality: Int) throws(ImagingFailure) -> Point {
            let bytes: [UInt8]
            if let known = encoded[quality] {
                bytes = known
            } else {
                try search.deadline.check()
                bytes = try search.encode(quality, fullChroma(quality))
                encoded[quality] = bytes
            }
            return Point(quality: quality, fullChroma: fullChroma(quality), bytes: bytes, dssim: scores[quality])
        }

        mutating func scoredPoint(_ quality: Int) throws(ImagingFailure) -> Point {
            let unscored = try point(quality)
            if unscored.dssim != nil { return unscored }
            try search.deadline.check()
            scores[quality] = try search.score(quality, unscored.fullChroma, unscored.bytes)
            return try point(quality)
        }

        /// `bound`: the cost another chroma already found. A candidate whose bits alone cost that
        /// cannot be chosen, nor can any higher quality: it is not scored, and the search goes lower.
        mutating func run(dearerThan bound: Double?) throws(ImagingFailure) {
            let qualities = search.qualities
            var low = qualities.lowerBound, high = qualities.upperBound
            searching: while low <= high, encoded.count < AutoQualitySearch.maxEncodes - (best == nil ? 1 : 0) {
                switch search.method {
                case .size:
                    let middle = (low + high + 1) / 2
                    let candidate = try point(middle)
                    if Double(candidate.bytes.count) <= search.target {
                        best = candidate
                        low = middle + 1
                    } else {
                        high = middle - 1
                    }
                case .dssim:
                    let middle = (low + high) / 2
                    if let bound, search.bitsPerPixel(try point(middle)) >= bound {
                        high = middle - 1
                        continue searching
                    }
                    let candidate = try scoredPoint(middle)
                    let dssim = candidate.dssim ?? .infinity
                    if dssim <= search.target + search.allowedError {
                        best = candidate
                        if dssim >= search.target - search.allowedError { break searching }
                        high = middle - 1
                    } else {
                        low = middle + 1
                    }
                case .none:
                    preconditionFailure("autoquality is off")
                }
            }
            guard search.slope > 0, var walked = best else { return }
            for _ in 0..<AutoQualitySearch.maxSlopeSteps {
                let next = min(walked.quality + AutoQualitySearch.slopeStep, qualities.upperBound)
                // Bits that alone cost what the walk has are not worth scoring.
                guard next > walked.quality, search.bitsPerPixel(try point(next)) < search.cost(walked) else { break }
                let candidate = try scoredPoint(next)
                guard search.cost(candidate) < search.cost(walked) else { break }
                walked = candidate
            }
            best = walked
        }
    }
}

/// What autoquality chose for a thumbnail: for `thumbd render` to print and bench/quality to read.
public struct ChosenQuality: Sendable, Hashable {
    public let quality: Int
    public let encodes: Int
    /// The chosen quality's DSSIM, where the search scored it.
    public let dssim: Double?
    /// Whether a JPEG keeps its chroma whole (4:4:4); other formats ignore it.
    public let fullChroma: Bool
    /// The pixels each DSSIM compared: the result's, or its sample's where it has more than
    /// the scoring resolution; nil where nothing was scored.
    public internal(set) var scoredPixels: Int?
}
