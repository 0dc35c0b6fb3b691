/// When AVIF halves its chroma both ways (4:2:0): imgproxy's AVIF_SUBSAMPLE, by libvips's names.
public enum AVIFSubsample: String, Sendable, CaseIterable {
    /// Below quality 90, as libvips (and so imgproxy) chooses by default.
    case auto
    /// At every quality.
    case on
    /// Never: 4:4:4 at every quality.
    case off
}
