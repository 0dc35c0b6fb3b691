import ThumbRequest

/// How the encoders are driven from the options: the qualities an encode tries, the chroma each
/// keeps, and whether autoquality chooses a JPEG's chroma. The renderer's rules, not the URL's:
/// `Renderer.encodePolicy` writes what the key needs of them.
extension ProcessingOptions {
    /// The qualities an encode tries, in order: the effective one (or `start`, the one autoquality
    /// found); with `max_bytes`, for the lossy formats, then 10 lower each time down to 10 (where
    /// imgproxy stops), until the result fits.
    package func qualitySteps(for format: ImageFormat, from start: Int? = nil) -> [Int] {
        var steps = [start ?? effectiveQuality(for: format)]
        guard maxBytes > 0, format.isLossy else { return steps }
        while let last = steps.last, last > 10 { steps.append(max(10, last - 10)) }
        return steps
    }

    /// Whether a JPEG (or an AVIF, by its own rule) at `quality` keeps its chroma whole (4:4:4)
    /// instead of 4:2:0.
    package func keepsFullChroma(_ format: ImageFormat, atQuality quality: Int) -> Bool {
        format == .avif ? avifSubsample.keepsFullChroma(atQuality: quality) : quality >= subsampleBelow
    }

    /// Whether autoquality chooses a JPEG's chroma too: spending by slope, unless `subsample_below`
    /// gives one chroma at every quality (0: 4:4:4, 101: 4:2:0), which is kept.
    func autoQualitySearchesChroma(for format: ImageFormat) -> Bool {
        format == .jpeg && autoQuality.spendsBySlope && subsampleBelow > 0 && subsampleBelow <= 100
    }
}

extension AVIFSubsample {
    func keepsFullChroma(atQuality quality: Int) -> Bool {
        switch self {
        case .auto: quality >= 90
        case .on: false
        case .off: true
        }
    }
}
