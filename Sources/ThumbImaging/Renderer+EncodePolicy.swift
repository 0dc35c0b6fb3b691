import ThumbRequest

extension Renderer {
    /// What the renderer's thumbnails depend on beyond the URL's options, for their keys.
    public static let encodePolicy: any EncodePolicy = KeyedEncoding()

    /// Written only where it is on or differs from what thumbd wrote before, so the keys of every
    /// other URL stay what they were.
    private struct KeyedEncoding: EncodePolicy {
        func keyFields(for options: ProcessingOptions) -> String {
            Self.chroma(options) + Self.autoQuality(options)
        }

        /// How the encoders keep chroma, where it is not what thumbd wrote before they did (4:2:0
        /// JPEG, plain RGB-to-YUV WebP, ImageMagick's AVIF at one quality), so a file written the
        /// old way is never taken for a new one: how many of the qualities a JPEG or AVIF encode may
        /// try are 4:4:4 (the rule `subsample_below` or `AVIF_SUBSAMPLE` sets, in its normal form),
        /// WebP's sharp YUV, and AVIF's encoder. Without a format, for JPEG and WebP (an AVIF is
        /// then the source's own).
        private static func chroma(_ options: ProcessingOptions) -> String {
            let formats = options.format.map { [$0] } ?? [.jpeg, .webp] + (options.bestNegotiated.map { [$0] } ?? [])
            var fields: [String] = []
            if formats.contains(.jpeg) {
                let whole = options.qualitySteps(for: .jpeg).filter { options.keepsFullChroma(.jpeg, atQuality: $0) }.count
                if whole > 0 { fields.append("444:\(whole)") }
            }
            if formats.contains(.webp) { fields.append("sharpyuv") }
            if formats.contains(.avif) {
                let whole = options.qualitySteps(for: .avif).filter { options.keepsFullChroma(.avif, atQuality: $0) }.count
                fields.append("libavif:444:\(whole)")
            }
            return fields.map { "|" + $0 }.joined()
        }

        /// Empty while autoquality is off or the output format is not searched; else what the
        /// search depends on: the bounds for the output format (every searched format's when it is
        /// the source's), the target, the allowed error and the scoring resolution where the method
        /// reads them, the resolution above which it is off, and the slope where it spends by one
        /// (with `subsample_below`, which says whether it chooses JPEG's chroma).
        private static func autoQuality(_ options: ProcessingOptions) -> String {
            let aq = options.autoQuality
            let formats = options.format.map { [$0] } ?? ImageFormat.allCases
            guard aq.method != .none, formats.contains(where: AutoQuality.searches) else { return "" }
            let bounds = formats.filter(AutoQuality.searches).map { aq.qualities(for: $0) }
                .map { "\($0.lowerBound)-\($0.upperBound)" }
            let number = ThumbnailKey.number
            let error = aq.method == .dssim ? number(aq.allowedError) : "-"
            let scored = aq.method == .dssim ? ":score\(number(aq.scoreResolution))" : ""
            // The quality found decides the JPEG's chroma: the rule that maps one to the other counts.
            return "|aq:\(aq.method.rawValue):\(number(aq.target)):\(bounds.joined(separator: ",")):\(error):"
                + "\(number(aq.maxResolution))\(scored):ssb\(options.subsampleBelow)"
                + (aq.spendsBySlope ? ":slope\(number(aq.dssimSlope))" : "")
        }
    }
}
