import ThumbRequest
import ThumbRuntime

/// Turns the pixels upright by the EXIF orientation (`auto_rotate`, on by default), so the tag
/// can be dropped.
struct AutoOrient: PreparationStep {
    func apply(to image: MagickImage, options: ProcessingOptions) throws(ImagingFailure) {
        guard options.autoRotate else { return }
        try image.autoOrient()
    }
}
