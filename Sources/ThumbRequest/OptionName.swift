/// Every option a URL or a preset may name, by imgproxy's long name, with its short names: the one
/// list the parser reads names by (an option not here is unknown), and the one docs/urls.md is
/// checked against. Adding an option is a case here, and the compiler then asks for its parsing.
public enum OptionName: String, CaseIterable, Sendable {
    // Geometry
    case resize, size, resizingType = "resizing_type", width, height, minWidth = "min-width", minHeight = "min-height"
    case zoom, dpr, enlarge, extend, extendAspectRatio = "extend_aspect_ratio", gravity, crop, trim, padding
    case autoRotate = "auto_rotate", rotate, flip
    // Colour and effects
    case background, blur, sharpen, pixelate, watermark
    // Metadata
    case stripMetadata = "strip_metadata", keepCopyright = "keep_copyright", stripColorProfile = "strip_color_profile"
    // Output
    case quality, formatQuality = "format_quality", autoquality, maxBytes = "max_bytes", format, skipProcessing = "skip_processing"
    // Output, thumbd's own
    case subsampleBelow = "subsample_below"
    // Handling
    case raw, cachebuster, expires, filename, returnAttachment = "return_attachment", preset
    // Security: only where ALLOW_SECURITY_OPTIONS is on
    case maxSrcResolution = "max_src_resolution", maxSrcFileSize = "max_src_file_size"
    case maxAnimationFrames = "max_animation_frames", maxResultDimension = "max_result_dimension"
    case maxAnimationFrameResolution = "max_animation_frame_resolution"
    // imgproxy's, which thumbd refuses by name
    case preserveHDR = "preserve_hdr", enforceThumbnail = "enforce_thumbnail"

    /// imgproxy's short names for it.
    public var shortNames: [String] {
        switch self {
        case .resize: ["rs"]
        case .size: ["s"]
        case .resizingType: ["rt"]
        case .width: ["w"]
        case .height: ["h"]
        case .minWidth: ["mw"]
        case .minHeight: ["mh"]
        case .zoom: ["z"]
        case .dpr, .raw: []
        case .enlarge: ["el"]
        case .extend: ["ex"]
        case .extendAspectRatio: ["extend_ar", "exar"]
        case .gravity: ["g"]
        case .crop: ["c"]
        case .trim: ["t"]
        case .padding: ["pd"]
        case .autoRotate: ["ar"]
        case .rotate: ["rot"]
        case .flip: ["fl"]
        case .background: ["bg"]
        case .blur: ["bl"]
        case .sharpen: ["sh"]
        case .pixelate: ["pix"]
        case .watermark: ["wm"]
        case .stripMetadata: ["sm"]
        case .keepCopyright: ["kcr"]
        case .stripColorProfile: ["scp"]
        case .quality: ["q"]
        case .formatQuality: ["fq"]
        case .autoquality: ["aq"]
        case .maxBytes: ["mb"]
        case .subsampleBelow: ["ssb"]
        case .format: ["f", "ext"]
        case .skipProcessing: ["skp"]
        case .cachebuster: ["cb"]
        case .expires: ["exp"]
        case .filename: ["fn"]
        case .returnAttachment: ["att"]
        case .preset: ["pr"]
        case .maxSrcResolution: ["msr"]
        case .maxSrcFileSize: ["msfs"]
        case .maxAnimationFrames: ["maf"]
        case .maxResultDimension: ["mrd"]
        case .maxAnimationFrameResolution: ["mafr"]
        case .preserveHDR: ["ph"]
        case .enforceThumbnail: ["eth"]
        }
    }

    /// The long name first, then the short ones.
    public var spellings: [String] { [rawValue] + shortNames }

    /// false for imgproxy's options thumbd knows by name but refuses as not supported.
    public var isSupported: Bool {
        switch self {
        case .preserveHDR, .enforceThumbnail, .maxAnimationFrameResolution: false
        default: true
        }
    }

    /// imgproxy's security options: refused (403) unless ALLOW_SECURITY_OPTIONS.
    public var isSecurityOption: Bool {
        switch self {
        case .maxSrcResolution, .maxSrcFileSize, .maxAnimationFrames, .maxResultDimension, .maxAnimationFrameResolution:
            true
        default: false
        }
    }

    /// The option a URL's spelling names; nil for a name imgproxy's grammar does not have.
    public init?(spelling: String) {
        guard let name = Self.bySpelling[spelling] else { return nil }
        self = name
    }

    private static let bySpelling: [String: OptionName] = Dictionary(
        uniqueKeysWithValues: allCases.flatMap { name in name.spellings.map { ($0, name) } }
    )
}
