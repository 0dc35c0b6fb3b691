import CMagickWand
import ThumbRuntime

extension MagickImage {
    /// Longest side of the copy smart crop analyses: enough to place a window within a few
    /// pixels of a thumbnail, small enough to score in a few milliseconds (smartcrop.js and
    /// imgproxy's libvips path analyse at about the same size).
    static let smartCropSide = 256

    /// A small RGB copy for analysis, the longer side at most `maxSide`; this image is left
    /// as it was. `scale` is original / copy (≥ 1), so a point on the copy times `scale` is the
    /// same point here.
    ///
    /// Point sampling, not filtering: it is the fastest, and fine texture stays busy rather
    /// than being averaged flat, which is what the edge detector should see.
    func downscaledPixels(maxSide: Int) throws(ImagingFailure) -> (buffer: PixelBuffer, scale: Double) {
        precondition(maxSide > 0, "maxSide must be positive")
        let original = (width: width, height: height)
        guard original.width > 0, original.height > 0 else { throw .internalFailure("smart crop: image has no pixels") }
        // The clone shares the pixel cache until the sample writes a new image.
        guard let copy = CloneMagickWand(wand) else { throw .internalFailure("smart crop: cannot copy the image") }
        defer { DestroyMagickWand(copy) }

        let longer = max(original.width, original.height)
        let shrink = max(1, Double(longer) / Double(maxSide))
        let width = min(original.width, max(1, Int((Double(original.width) / shrink).rounded())))
        let height = min(original.height, max(1, Int((Double(original.height) / shrink).rounded())))
        if width != original.width || height != original.height {
            try Self.check(MagickSampleImage(copy, width, height), on: copy, "sample")
        }
        // CMYK or grey would export their own channels under the names R, G and B.
        try Self.check(MagickTransformImageColorspace(copy, sRGBColorspace), on: copy, "colourspace")

        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        let exported = rgb.withUnsafeMutableBytes {
            MagickExportImagePixels(copy, 0, 0, width, height, "RGB", CharPixel, $0.baseAddress)
        }
        try Self.check(exported, on: copy, "export pixels")
        let buffer = PixelBuffer(width: width, height: height, rgb: rgb)
        return (buffer, Double(longer) / Double(max(width, height)))
    }

    /// The smart-crop window of `width` x `height` (clamped to the image), in this image's pixels.
    /// Searched on a copy at most `smartCropSide` pixels long; the chosen window's centre is
    /// mapped back, and the full-size window placed around it, inside the image.
    func smartWindow(width: Int, height: Int) throws(ImagingFailure) -> PixelRect {
        let image = (width: self.width, height: self.height)
        let size = (width: min(max(width, 1), image.width), height: min(max(height, 1), image.height))
        guard size.width < image.width || size.height < image.height else {
            return PixelRect(x: 0, y: 0, width: size.width, height: size.height)
        }
        let (buffer, _) = try downscaledPixels(maxSide: Self.smartCropSide)
        // Per axis: rounding the copy's sides makes their ratios differ slightly from `scale`.
        let scale = (x: Double(image.width) / Double(buffer.width), y: Double(image.height) / Double(buffer.height))
        let small = SmartCrop.window(
            in: buffer,
            width: Int((Double(size.width) / scale.x).rounded()),
            height: Int((Double(size.height) / scale.y).rounded())
        )
        let centre = (x: (Double(small.x) + Double(small.width) / 2) * scale.x,
                      y: (Double(small.y) + Double(small.height) / 2) * scale.y)
        return PixelRect(
            x: Self.place(size.width, around: centre.x, within: image.width),
            y: Self.place(size.height, around: centre.y, within: image.height),
            width: size.width,
            height: size.height
        )
    }

    /// The start of a span of `length` centred on `centre`, kept inside 0..<`limit`.
    private static func place(_ length: Int, around centre: Double, within limit: Int) -> Int {
        min(max(Int((centre - Double(length) / 2).rounded()), 0), limit - length)
    }

    /// `MagickImage`'s own check reads this image's wand; the copy carries its own exception.
    private static func check(_ result: MagickBooleanType, on copy: OpaquePointer, _ what: String) throws(ImagingFailure) {
        guard result != MagickTrue else { return }
        var severity = UndefinedException
        guard let message = MagickGetException(copy, &severity) else {
            throw .internalFailure("smart crop \(what): unknown error")
        }
        defer { MagickRelinquishMemory(message) }
        throw .internalFailure("smart crop \(what): \(String(cString: message))")
    }
}
