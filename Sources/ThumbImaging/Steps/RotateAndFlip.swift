import ThumbRequest
import ThumbRuntime

/// `rotate` (clockwise, in right angles) then `flip`, before any geometry, so every later size
/// and gravity is in the orientation the viewer sees.
struct RotateAndFlip: PreparationStep {
    func apply(to image: MagickImage, options: ProcessingOptions) throws(ImagingFailure) {
        if options.rotate != 0 { try image.rotate(degrees: options.rotate) }
        if options.flipHorizontal { try image.flop() }
        if options.flipVertical { try image.flip() }
    }
}
