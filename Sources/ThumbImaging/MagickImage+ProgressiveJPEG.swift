import CMagickWand

extension MagickImage {
    /// Decodes a progressive JPEG at 1/8 scale from its DC scans (see ProgressiveJPEG), with the
    /// profiles and orientation ImageMagick's reader gives it (from `header`, the file pinged).
    /// Returns false, with nothing read, when the scale or the file does not allow it: the caller
    /// reads the whole file, and libjpeg reports what is wrong with it.
    func readProgressiveJPEGAtEighth(_ bytes: [UInt8], header: MagickImage, hint: (width: Int, height: Int)) -> Bool {
        guard ProgressiveJPEG.decodesAtEighth(width: header.width, height: header.height, hint: hint),
              let eighth = ProgressiveJPEG.eighth(bytes) else { return false }
        return eighth.pixels.withUnsafeBytes { pixels in
            take(pixels: pixels.baseAddress!, width: eighth.width, height: eighth.height, map: eighth.channels == 1 ? "I" : "RGB",
                 metadataOf: header)
        }
    }
}
