import CMagickWand
import Foundation
import ThumbRuntime

/// `blur`, `sharpen` and `pixelate`, each costing a bounded amount per pixel whatever the sigma:
/// ImageMagick's Gaussian blur and sharpen convolve a 2D kernel, (6σ+1)² taps a pixel (4 s on a
/// 200x200 image at sigma 40); these run a separable blur, and a wide one on a shrunk copy.
extension MagickImage {
    /// The widest blur run at full size: 2 passes of about 6σ+1 taps a pixel (50 at 4; 0.3 s a
    /// megapixel here). A wider one runs on a copy shrunk until its sigma is this, scaled back
    /// with a smooth filter: a Gaussian that wide leaves no detail the shrinking could lose.
    static let fullSizeBlurSigma = 4.0

    /// A Gaussian blur: separable, or on a shrunk copy past `fullSizeBlurSigma`.
    func blur(sigma: Double) throws(ImagingFailure) {
        let (width, height) = (self.width, self.height)
        let shrink = min(1, Self.fullSizeBlurSigma / sigma)
        guard shrink < 1 else {
            return try check(MagickBlurImage(wand, 0, sigma), or: { .internalFailure("blur: \($0)") })
        }
        try check(MagickResizeImage(wand, max(1, Int((Double(width) * shrink).rounded())), max(1, Int((Double(height) * shrink).rounded())),
                                    TriangleFilter, 1), or: { .internalFailure("blur: \($0)") })
        try check(MagickBlurImage(wand, 0, sigma * shrink), or: { .internalFailure("blur: \($0)") })
        try check(MagickResizeImage(wand, width, height, TriangleFilter, 1), or: { .internalFailure("blur: \($0)") })
    }

    /// An unsharp mask, image + gain × (image − blurred), with the blur above. The gain is the one
    /// ImageMagick's own sharpen works out to (its kernel is that mask with the centre weight
    /// taken out), so thumbnails are as sharp as with it. Colour channels only: alpha is kept.
    func sharpen(sigma: Double) throws(ImagingFailure) {
        let blurred = try currentFrame()
        try blurred.blur(sigma: sigma)
        let gain = Self.sharpenGain(sigma: sigma)
        MagickSetImageArtifact(wand, "compose:args", "0,\(-gain),\(1 + gain),0")
        defer { MagickDeleteImageArtifact(wand, "compose:args") }
        let colour = ChannelType(RedChannel.rawValue | GreenChannel.rawValue | BlueChannel.rawValue)
        try check(MagickCompositeImageChannel(wand, colour, blurred.wand, MathematicsCompositeOp, 0, 0),
                  or: { .internalFailure("sharpen: \($0)") })
    }

    /// 1 / (1 + g₀), g₀ the centre weight of the normalised 2D Gaussian of `sigma`.
    static func sharpenGain(sigma: Double) -> Double {
        let radius = Int((3 * sigma).rounded(.up))
        let row = (-radius...radius).reduce(0.0) { $0 + exp(-Double($1 * $1) / (2 * sigma * sigma)) }
        return 1 / (1 + 1 / (row * row))
    }

    /// Blocks of `size` pixels: sample down, then back up without smoothing.
    func pixelate(size: Int) throws(ImagingFailure) {
        let (width, height) = (self.width, self.height)
        try check(MagickSampleImage(wand, max(1, width / size), max(1, height / size)), or: { .internalFailure("pixelate: \($0)") })
        try check(MagickSampleImage(wand, width, height), or: { .internalFailure("pixelate: \($0)") })
    }
}
