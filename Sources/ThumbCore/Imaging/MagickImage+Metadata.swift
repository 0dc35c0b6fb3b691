import CMagickWand

extension MagickImage {
    /// What ImageMagick's reader would have given pixels thumbd decoded itself: every profile
    /// (ICC, EXIF, XMP, IPTC) and the orientation `header`, the same file pinged, has.
    func takeMetadata(of header: MagickImage) {
        var count = 0
        if let names = MagickGetImageProfiles(header.wand, "*", &count) {
            defer { MagickRelinquishMemory(names) }
            for index in 0..<count {
                guard let name = names[index] else { continue }
                defer { MagickRelinquishMemory(name) }
                var length = 0
                guard let profile = MagickGetImageProfile(header.wand, name, &length) else { continue }
                MagickSetImageProfile(wand, name, profile, length)
                MagickRelinquishMemory(profile)
            }
        }
        MagickSetImageOrientation(wand, header.orientation)
    }
}
