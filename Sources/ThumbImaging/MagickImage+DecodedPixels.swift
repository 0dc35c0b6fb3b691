import CMagickWand

extension MagickImage {
    /// Makes the image from 8-bit pixels thumbd decoded itself (`map`: "RGB", "RGBA" or "I" for
    /// grey), with what ImageMagick's reader would have given them: every profile (ICC, EXIF,
    /// XMP, IPTC) and the orientation `header`, the same file pinged, has. False, with nothing
    /// read, when ImageMagick refuses them.
    func take(pixels: UnsafeRawPointer, width: Int, height: Int, map: String, metadataOf header: MagickImage) -> Bool {
        guard MagickConstituteImage(wand, width, height, map, CharPixel, pixels) == MagickTrue else {
            MagickClearException(wand)
            return false
        }
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
        return true
    }
}
