import ThumbRequest

/// The formats a best-format render tries, in order: the format the client's Accept picked (its
/// class in nginx's map), then the preferred formats (PREFERRED_FORMATS), each once; of these,
/// those that keep what the result has (an animation, transparency). GIF only for an animation: a
/// still GIF is smaller by its 256 colours, not at the quality the others are held to. Without a
/// target common to every format (autoquality's), only the first lossy candidate is tried beside
/// the lossless ones: each lossy format at its own default quality is another quality (JPEG q80
/// scores about 67 SSIMULACRA2, AVIF q63 about 80), and the smaller would win by looking worse.
struct BestFormatCandidates {
    let formats: [ImageFormat]

    init(negotiated: ImageFormat?, preferred: PreferredFormats) {
        var formats: [ImageFormat] = []
        for format in (negotiated.map { [$0] } ?? []) + preferred.formats where !formats.contains(format) {
            formats.append(format)
        }
        self.formats = formats
    }

    /// Whether an animated source stays animated: some candidate animates.
    var keepAnimation: Bool { formats.contains(where: \.supportsAnimation) }

    /// The candidates for a result with frames or transparency, where any keeps them; else all.
    /// `commonTarget`: every lossy candidate is encoded to one target, so all may compete.
    func fitting(animated: Bool, transparent: Bool, commonTarget: Bool) -> [ImageFormat] {
        var fitting = formats.filter { format in
            (animated ? format.supportsAnimation : format != .gif) && (!transparent || format.supportsAlpha)
        }
        if fitting.isEmpty { fitting = formats }
        guard !commonTarget, let lossy = fitting.first(where: \.isLossy) else { return fitting }
        return fitting.filter { !$0.isLossy || $0 == lossy }
    }
}
