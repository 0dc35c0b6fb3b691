import ThumbRuntime

/// Drops EXIF, comments and profiles (they are bytes a thumbnail does not need, and can leak
/// where and with what a photo was taken), except what is asked to stay: the copyright
/// (kept as a comment) and the sRGB profile.
struct StripMetadata: RenderStep {
    func apply(to image: MagickImage, in context: RenderContext) throws(ImagingFailure) {
        let options = context.options
        guard options.stripMetadata else { return }
        let copyright = options.keepCopyright ? image.property("exif:Copyright") : nil
        let profile = options.stripColorProfile ? nil : image.iccProfile
        try image.strip()
        if let profile { try image.convert(toProfile: profile) }
        if let copyright { image.setProperty("comment", copyright) }
    }
}
