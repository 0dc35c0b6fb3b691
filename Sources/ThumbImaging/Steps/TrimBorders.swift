import ThumbRequest
import ThumbRuntime

/// `trim`: cuts borders of one colour (the corner's, or the asked one), optionally by equal
/// amounts on opposite sides.
struct TrimBorders: PreparationStep {
    func apply(to image: MagickImage, options: ProcessingOptions) throws(ImagingFailure) {
        guard let trim = options.trim else { return }
        if let color = trim.color {
            // ImageMagick trims the corners' colour: a one-pixel frame of the asked colour makes it that.
            try image.extend(toWidth: image.width + 2, height: image.height + 2, x: 1, y: 1, color: color.magickName)
        }
        guard var box = try image.trimmedBox(fuzz: trim.threshold / 255) else { return }
        let (width, height) = (image.width, image.height)
        if trim.equalHorizontal {
            let side = min(box.x, width - box.x - box.width)
            box = PixelRect(x: side, y: box.y, width: width - 2 * side, height: box.height)
        }
        if trim.equalVertical {
            let side = min(box.y, height - box.y - box.height)
            box = PixelRect(x: box.x, y: side, width: box.width, height: height - 2 * side)
        }
        try image.crop(box)
    }
}
