/// What to do with the source image, as the URL's options say (imgproxy's processing options),
/// after presets are applied. Defaults are imgproxy's.
public struct ProcessingOptions: Sendable, Hashable {
    public static let maxDimension = 16_384

    // Geometry
    public var resizingType: ResizingType = .fit
    /// 0 means: derived from the other side and the aspect ratio.
    public var width = 0
    public var height = 0
    public var minWidth = 0
    public var minHeight = 0
    public var zoomX = 1.0
    public var zoomY = 1.0
    /// Device pixel ratio: multiplies width, height, padding and offsets.
    public var dpr = 1.0
    public var enlarge = false
    /// Extend to the asked size with the background, placed by this gravity; nil = off.
    public var extend: Gravity? {
        get { extendSwitch.gravity }
        set { extendSwitch.set(newValue) }
    }
    /// Extend to the asked aspect ratio; nil = off.
    public var extendAspectRatio: Gravity? {
        get { extendAspectRatioSwitch.gravity }
        set { extendAspectRatioSwitch.set(newValue) }
    }
    /// As imgproxy keeps them: a gravity given while extending is off (`ex:0:so`) stays for a
    /// later `ex:1` (a preset's, then the URL's).
    var extendSwitch = ExtendSwitch()
    var extendAspectRatioSwitch = ExtendSwitch()
    public var gravity = Gravity.center
    /// Cut before resizing; nil = off.
    public var crop: Crop?
    public var trim: Trim?
    public var padding = Padding()
    public var autoRotate = true
    /// Degrees clockwise, after auto-rotation: 0, 90, 180 or 270.
    public var rotate = 0
    public var flipHorizontal = false
    public var flipVertical = false

    // Colour and effects
    /// nil: transparent where the format allows, white where it does not.
    public var background: RGBColor?
    public var blur = 0.0
    public var sharpen = 0.0
    public var pixelate = 0
    public var watermark: Watermark?

    // Metadata
    public var stripMetadata = true
    public var keepCopyright = true
    public var stripColorProfile = true

    // Output
    /// 0 means: the output format's default quality.
    public var quality = 0
    /// Per-format qualities (`fq`), over `quality`.
    public var formatQuality: [ImageFormat: Int] = [:]
    /// The quality searched per image (`aq`); over `quality` where it applies.
    public var autoQuality = AutoQuality()
    /// Lower the quality until the result fits; 0 = no limit.
    public var maxBytes = 0
    /// JPEG halves its chroma both ways (4:2:0) below this quality and keeps it whole (4:4:4) from
    /// it, as libvips and mozjpeg do: at high quality 4:2:0's colour loss is the error left, and
    /// caps the score whatever the quality. 0 never subsamples, 101 always does.
    public var subsampleBelow = 90
    /// How hard libwebp searches (its method, imgproxy's WEBP_EFFORT), 1 to 6: 6 writes fewer bytes
    /// than libwebp's default 4 at equal SSIMULACRA2 for more render CPU (bench/README.md), paid
    /// once a thumbnail. A setting, not a URL option, and not in the key: it changes a file's
    /// bytes, not what it shows.
    public var webpEffort = 6
    /// libavif's speed with libaom (imgproxy's AVIF_SPEED), 0 (slowest) to 9.
    public var avifSpeed = 6
    /// When AVIF halves its chroma (imgproxy's AVIF_SUBSAMPLE).
    public var avifSubsample = AVIFSubsample.off
    /// libjxl's effort (imgproxy's JXL_EFFORT), 1 (fastest) to 9.
    public var jxlEffort = 5
    /// PNGs are written with a palette of at most `pngQuantizationColors` colours (imgproxy's
    /// PNG_QUANTIZE and PNG_QUANTIZATION_COLORS). Settings, not in the key, as `webpEffort`.
    public var pngQuantize = false
    public var pngQuantizationColors = 256
    /// nil means: the source's format (or the one the client accepts, when negotiation is on),
    /// or the best format where `bestFormat` says so.
    public var format: ImageFormat?
    /// imgproxy Pro's `best` format (`f:best`, `@best`, BEST_FORMAT_BY_DEFAULT where the URL names
    /// no format): every candidate encoded, the smallest kept. A format named turns it off.
    public var bestFormat = false
    /// With `bestFormat`, the format the client's Accept picked (its class in nginx's map), a
    /// candidate beside the preferred formats; nil for a client that accepts none negotiated.
    public var bestNegotiated: ImageFormat?
    /// Source formats passed through untouched.
    public var skipProcessing: Set<ImageFormat> = []
    /// imgproxy's `raw`: the source's own bytes, unprocessed, whatever the other options say.
    public var raw = false
    public var cacheBuster = ""
    /// Unix time after which the URL answers 404.
    public var expires: Int?
    public var filename: String?
    public var returnAttachment = false

    // Security options, only when the operator allows them in URLs.
    public var maxSourceResolution: Double?
    public var maxSourceFileSize: Int?
    public var maxAnimationFrames: Int?
    public var maxResultDimension: Int?

    public init() {}

    /// Whether the answer carries a Content-Disposition, which nginx's static path would not send.
    public var needsDisposition: Bool { filename != nil || returnAttachment }

    /// When the URL stops being valid (seconds since 1970); nil when it does not expire (`exp:0`).
    public var expiresAt: Int? { expires.flatMap { $0 > 0 ? $0 : nil } }

    /// The quality to encode `format` with: `q` when set, then `fq` for the format, then the
    /// format's default (imgproxy's precedence).
    public func effectiveQuality(for format: ImageFormat) -> Int {
        quality > 0 ? quality : (formatQuality[format] ?? format.defaultQuality)
    }
}

/// `crop:%width:%height:%gravity`: values of 1 and more are pixels, below 1 a share of the side,
/// 0 the whole side; nil gravity means the image's gravity.
public struct Crop: Sendable, Hashable {
    public var width: Double
    public var height: Double
    public var gravity: Gravity?

    public init(width: Double, height: Double, gravity: Gravity? = nil) {
        self.width = width
        self.height = height
        self.gravity = gravity
    }
}

/// `trim:%threshold:%color:%equal_hor:%equal_ver`: cut borders of one colour.
public struct Trim: Sendable, Hashable {
    public var threshold: Double
    /// nil: the colour of the top-left pixel.
    public var color: RGBColor?
    public var equalHorizontal = false
    public var equalVertical = false

    public init(threshold: Double, color: RGBColor? = nil, equalHorizontal: Bool = false, equalVertical: Bool = false) {
        self.threshold = threshold
        self.color = color
        self.equalHorizontal = equalHorizontal
        self.equalVertical = equalVertical
    }
}

/// `padding:%top:%right:%bottom:%left`, CSS shorthand, in pixels (times dpr).
public struct Padding: Sendable, Hashable {
    public var top = 0
    public var right = 0
    public var bottom = 0
    public var left = 0

    public init(top: Int = 0, right: Int = 0, bottom: Int = 0, left: Int = 0) {
        self.top = top
        self.right = right
        self.bottom = bottom
        self.left = left
    }

    public var isEmpty: Bool { top == 0 && right == 0 && bottom == 0 && left == 0 }
}

/// An opaque colour, from `R:G:B` or hex in URLs.
public struct RGBColor: Sendable, Hashable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public static let white = RGBColor(red: 255, green: 255, blue: 255)

    /// As ImageMagick reads colours.
    public var magickName: String { "rgb(\(red),\(green),\(blue))" }
}

/// `watermark:%opacity:%position:%x_offset:%y_offset:%scale` over the configured watermark image.
public struct Watermark: Sendable, Hashable {
    public enum Position: Sendable, Hashable {
        case anchored(Gravity.Anchor)
        /// `re`: tiled over the whole image.
        case replicate
    }

    public var opacity: Double
    public var position = Position.anchored(.center)
    public var offsetX = 0.0
    public var offsetY = 0.0
    /// Share of the result's width the watermark takes; 0 = its own size.
    public var scale = 0.0

    public init(opacity: Double, position: Position = .anchored(.center), offsetX: Double = 0, offsetY: Double = 0,
                scale: Double = 0) {
        self.opacity = opacity
        self.position = position
        self.offsetX = offsetX
        self.offsetY = offsetY
        self.scale = scale
    }
}
