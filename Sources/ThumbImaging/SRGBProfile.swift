import CLittleCMS

/// The sRGB ICC profile, made by Little CMS (which ImageMagick itself uses for conversions), so
/// thumbd needs no profile file on disk.
enum SRGBProfile {
    static let bytes: [UInt8] = {
        guard let profile = cmsCreate_sRGBProfile() else { return [] }
        defer { cmsCloseProfile(profile) }
        var length: cmsUInt32Number = 0
        guard cmsSaveProfileToMem(profile, nil, &length) != 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        guard cmsSaveProfileToMem(profile, &bytes, &length) != 0 else { return [] }
        return bytes
    }()
}
