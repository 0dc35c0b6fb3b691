import CMagickWand

extension MagickImage {
    /// Decodes a progressive JPEG at 1/8 scale from the scans that scale needs (see
    /// ProgressiveJPEG): the same pixels as the whole file gives. Returns false, with nothing
    /// read, when the file or the scale does not allow it, or when the reduced file does not
    /// decode: the caller reads the whole file, and reports what is wrong with it.
    /// `jpeg:size` must already be set to `hint`.
    func readProgressiveJPEGAtEighth(_ bytes: [UInt8], width: Int, height: Int,
                                     hint: (width: Int, height: Int)) -> Bool {
        guard ProgressiveJPEG.decodesAtEighth(width: width, height: height, hint: hint),
              let reduced = ProgressiveJPEG.withoutFullResolutionACScans(bytes) else { return false }
        setOption("jpeg:block-smoothing", "false")
        if (try? read(reduced)) != nil, self.width == (width + 7) / 8 && self.height == (height + 7) / 8 {
            return true
        }
        // A failed read, or ImageMagick chose another scale, at which AC coefficients count.
        while frameCount > 0 {
            MagickSetLastIterator(wand)
            MagickRemoveImage(wand)
        }
        MagickDeleteOption(wand, "jpeg:block-smoothing")
        MagickClearException(wand)
        return false
    }
}
