import ThumbRuntime

/// imgproxy Pro's autoquality: the encoder's quality chosen per image, between a minimum and a
/// maximum, by a target: `size` takes the largest quality whose file fits `target` bytes (the
/// minimum when none does), `dssim` the lowest whose DSSIM against the unencoded thumbnail is
/// at most `target` (the maximum when none is). Only JPEG, WebP and AVIF stills are searched: PNG
/// and GIF ignore quality, an animation keeps its quality, and JPEG XL is encoded at its plain
/// quality (imgproxy's autoquality has no JPEG XL bounds). The defaults are imgproxy's settings'.
public struct AutoQuality: Sendable, Hashable {
    public enum Method: String, Sendable, CaseIterable {
        case none, size, dssim
    }

    public var method = Method.none
    /// Bytes for `size`, a DSSIM for `dssim`.
    public var target = 0.02
    public var minQuality = 70
    public var maxQuality = 80
    /// Per-format bounds over `minQuality` and `maxQuality` (AVIF's scale is not JPEG's).
    public var formatMinQuality: [ImageFormat: Int] = [.avif: 60]
    public var formatMaxQuality: [ImageFormat: Int] = [.avif: 65]
    /// `dssim` stops searching once a quality's DSSIM is this close to the target.
    public var allowedError = 0.002
    /// Megapixels of the result above which autoquality is not used; 0: no limit. imgproxy's
    /// default is 0; thumbd's bounds what a search's encodes cost (see the setting's help).
    public var maxResolution = 5.0
    /// thumbd's own, for `dssim`: megapixels DSSIM compares at most; a larger result is scored on
    /// tiles of it at full resolution (AutoQualitySample), each candidate encoded again there.
    public var scoreResolution = 1.0
    /// thumbd's own, for `dssim`: the bits per pixel a fall of 1 in DSSIM is worth. Above 0, the
    /// target is a ceiling and the search goes on raising the quality while that buys DSSIM at
    /// least this cheaply, and a JPEG also tries the chroma `subsample_below` would not give it
    /// (unless that is 0 or 101). 0: imgproxy's `dssim`, the lowest quality within the target.
    public var dssimSlope = 0.0

    public init() {}

    /// The qualities searched for `format`; a minimum above the maximum is the maximum alone.
    public func qualities(for format: ImageFormat) -> ClosedRange<Int> {
        let upper = formatMaxQuality[format] ?? maxQuality
        return min(formatMinQuality[format] ?? minQuality, upper)...upper
    }

    /// Whether `dssim` spends by slope rather than stopping at the target.
    public var spendsBySlope: Bool { method == .dssim && dssimSlope > 0 }

    /// Whether a still of `width` x `height` in `format` has its quality searched.
    public func applies(to format: ImageFormat, width: Int, height: Int) -> Bool {
        Self.searches(format) && isOn(width: width, height: height)
    }

    /// Whether autoquality is on for a still of `width` x `height`, whatever its format.
    public func isOn(width: Int, height: Int) -> Bool {
        method != .none && (maxResolution <= 0 || Double(width * height) <= maxResolution * 1_000_000)
    }

    /// The formats whose quality is searched.
    public static func searches(_ format: ImageFormat) -> Bool { format == .jpeg || format == .webp || format == .avif }

    /// `autoquality:%method:%target:%min_quality:%max_quality:%allowed_error`, every argument
    /// optional. A URL's minimum or maximum holds for every format, over the per-format settings.
    mutating func apply(_ args: OptionArguments) throws(RequestFailure) {
        try args.expectCount(1...5)
        if let name = args[0] {
            if name == "ml" {
                throw .invalidURL("\(args.name) method ml needs a neural network model, which thumbd does not run; "
                    + "dssim is the same search without one")
            }
            guard let parsed = Method(rawValue: name) else {
                throw args.invalid(0, "method", expected: Method.allCases.map(\.rawValue).joined(separator: ", "))
            }
            method = parsed
        }
        target = try args.decimal(1, .above(0, to: Double(ProcessingOptions.maxBytesLimit)), what: "target") ?? target
        if let low = try args.integer(2, in: 1...100, what: "min_quality") {
            minQuality = low
            formatMinQuality = [:]
        }
        if let high = try args.integer(3, in: 1...100, what: "max_quality") {
            maxQuality = high
            formatMaxQuality = [:]
        }
        allowedError = try args.decimal(4, .from(0, to: 1), what: "allowed_error") ?? allowedError
    }
}
