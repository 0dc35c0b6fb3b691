import ThumbRuntime

/// imgproxy's option grammar: `name:arg1:arg2...`, long and short names, empty arguments keep a
/// value as it was. Every failure names the option and the argument. Presets (`pr`) need the
/// configured presets and are applied by `OptionParser`, which hands every other option here.
extension ProcessingOptions {
    /// Every option but `preset`; the security options only when `allowSecurityOptions`.
    mutating func apply(_ option: URLOption, allowSecurityOptions: Bool) throws(RequestFailure) {
        guard let name = OptionName(spelling: option.name) else { throw .invalidURL("unknown option \(option.name)") }
        let args = OptionArguments(option)
        switch name {
        case .resize: try applyResize(args)
        case .size:
            try args.expectCount(1...7)
            try applySize(args, from: 0)
        case .resizingType:
            try args.expectCount(1...1)
            resizingType = try Self.resizingType(args, 0, required: true) ?? resizingType
        case .width: width = try Self.dimension(args) ?? width
        case .height: height = try Self.dimension(args) ?? height
        case .minWidth: minWidth = try Self.dimension(args) ?? minWidth
        case .minHeight: minHeight = try Self.dimension(args) ?? minHeight
        case .zoom: try applyZoom(args)
        case .dpr:
            try args.expectCount(1...1)
            dpr = try args.decimal(0, .above(0, to: Self.maxDPR), required: true) ?? dpr
        case .enlarge: enlarge = try Self.bool(args) ?? enlarge
        case .extend:
            try args.expectCount(1...4)
            try applyExtend(args, from: 0, to: \.extendSwitch)
        case .extendAspectRatio:
            try args.expectCount(1...4)
            try applyExtend(args, from: 0, to: \.extendAspectRatioSwitch)
        case .gravity:
            try args.expectCount(1...3)
            gravity = try args.gravity(from: 0, allowed: Gravity.Anchor.allCases, current: gravity, what: "type")
        case .crop: try applyCrop(args)
        case .trim: try applyTrim(args)
        case .padding: try applyPadding(args)
        case .autoRotate: autoRotate = try Self.bool(args) ?? autoRotate
        case .rotate: try applyRotate(args)
        case .flip:
            try args.expectCount(1...2)
            flipHorizontal = args.bool(0) ?? flipHorizontal
            flipVertical = args.bool(1) ?? flipVertical
        case .background, .blur, .sharpen, .pixelate, .watermark, .stripMetadata, .keepCopyright, .stripColorProfile,
             .quality, .formatQuality, .autoquality, .maxBytes, .subsampleBelow, .format, .skipProcessing, .raw,
             .cachebuster, .expires, .filename, .returnAttachment, .maxSrcResolution, .maxSrcFileSize,
             .maxAnimationFrames, .maxResultDimension, .maxAnimationFrameResolution, .preserveHDR, .enforceThumbnail:
            try applyOutput(name, args, allowSecurityOptions: allowSecurityOptions)
        case .preset:
            // Presets are the operator's: OptionParser applies them and never hands `pr` here.
            throw .invalidURL("unknown option \(option.name)")
        }
    }

    /// The largest `dpr` a URL may ask for (imgproxy's bound on the DPR client hint).
    static let maxDPR = 8.0

    /// The bound of numbers imgproxy leaves unbounded (zoom, blur, ...), so that no later
    /// arithmetic on them overflows.
    static let maxFactor = Double(maxDimension)

    // MARK: Geometry

    /// `type:width:height:enlarge:extend[:gravity args]`.
    private mutating func applyResize(_ args: OptionArguments) throws(RequestFailure) {
        try args.expectCount(1...8)
        resizingType = try Self.resizingType(args, 0) ?? resizingType
        try applySize(args, from: 1)
    }

    /// `width:height:enlarge:extend[:type:x:y]`, shared by `resize` and `size`. Each empty
    /// argument keeps its value; an empty extend leaves its gravity unread, as in imgproxy.
    private mutating func applySize(_ args: OptionArguments, from start: Int) throws(RequestFailure) {
        let limit = 0...Self.maxDimension
        width = try args.integer(start, in: limit) ?? width
        height = try args.integer(start + 1, in: limit) ?? height
        enlarge = args.bool(start + 2) ?? enlarge
        if args[start + 3] != nil { try applyExtend(args, from: start + 3, to: \.extendSwitch) }
    }

    /// `enabled[:type:x:y]`, `enabled` read as imgproxy reads a boolean (empty is false): a
    /// gravity given while extend is off is checked and dropped.
    private mutating func applyExtend(_ args: OptionArguments, from start: Int,
                                      to field: WritableKeyPath<ProcessingOptions, ExtendSwitch>) throws(RequestFailure) {
        if args.count > start + 1 {
            self[keyPath: field].placement = try args.gravity(from: start + 1, allowed: Self.extendAnchors,
                                                              current: self[keyPath: field].placement, what: "gravity type")
        }
        self[keyPath: field].isOn = args.bool(start, emptyKeeps: false) == true
    }

    /// imgproxy's extend gravities: every one but smart.
    static let extendAnchors = Gravity.Anchor.allCases.filter { $0 != .smart }

    /// `zoom:x_y` or `zoom:x:y`, each above 0.
    private mutating func applyZoom(_ args: OptionArguments) throws(RequestFailure) {
        try args.expectCount(1...2)
        let bounds = DecimalBounds.above(0, to: Self.maxFactor)
        let x = try args.decimal(0, bounds, required: true) ?? zoomX
        zoomX = x
        zoomY = args.count == 1 ? x : try args.decimal(1, bounds, required: true) ?? zoomY
    }

    /// `width:height[:gravity args]`: pixels from 1 up, a share of the side below 1, 0 for the
    /// whole side; without a gravity the crop follows the image's `gravity`.
    private mutating func applyCrop(_ args: OptionArguments) throws(RequestFailure) {
        try args.expectCount(1...5)
        let bounds = DecimalBounds.from(0, to: Double(Self.maxDimension))
        var cut = crop ?? Crop(width: 0, height: 0)
        cut.width = try args.decimal(0, bounds, what: "width", required: true) ?? cut.width
        cut.height = try args.decimal(1, bounds, what: "height", required: args.count > 1) ?? cut.height
        if args.count > 2 {
            cut.gravity = try args.gravity(from: 2, allowed: Gravity.Anchor.allCases, current: cut.gravity ?? .center,
                                           what: "gravity type")
        }
        crop = cut
    }

    /// `threshold:color:equal_hor:equal_ver`. As imgproxy: no threshold turns trimming off, no
    /// colour means the colour of the corner, the two flags keep their values.
    private mutating func applyTrim(_ args: OptionArguments) throws(RequestFailure) {
        try args.expectCount(1...4)
        let threshold = try args.decimal(0, .from(0, to: Self.maxFactor), what: "threshold")
        let color = try args.hexColor(1, what: "colour")
        let equalHorizontal = args.bool(2) ?? trim?.equalHorizontal ?? false
        let equalVertical = args.bool(3) ?? trim?.equalVertical ?? false
        trim = threshold.map {
            Trim(threshold: $0, color: color, equalHorizontal: equalHorizontal, equalVertical: equalVertical)
        }
    }

    /// CSS shorthand: `top[:right[:bottom[:left]]]`; right and bottom default to top, left to right.
    private mutating func applyPadding(_ args: OptionArguments) throws(RequestFailure) {
        try args.expectCount(1...4)
        let limit = 0...Self.maxDimension
        var sides = padding
        sides.top = try args.integer(0, in: limit) ?? sides.top
        sides.right = try args.integer(1, in: limit) ?? sides.top
        sides.bottom = try args.integer(2, in: limit) ?? sides.top
        sides.left = try args.integer(3, in: limit) ?? sides.right
        padding = sides
    }

    /// Any multiple of 90 degrees, as imgproxy takes it, kept as 0, 90, 180 or 270.
    private mutating func applyRotate(_ args: OptionArguments) throws(RequestFailure) {
        try args.expectCount(1...1)
        guard let degrees = Int(args.values[0]), degrees.isMultiple(of: 90) else {
            throw args.invalid(0, expected: "a multiple of 90: 0, 90, 180 or 270")
        }
        rotate = (degrees % 360 + 360) % 360
    }

    // MARK: Shared readers

    /// A single width or height: 0...maxDimension, required.
    static func dimension(_ args: OptionArguments) throws(RequestFailure) -> Int? {
        try args.expectCount(1...1)
        return try args.integer(0, in: 0...maxDimension, required: true)
    }

    /// A single boolean argument, empty being false as imgproxy reads it.
    static func bool(_ args: OptionArguments) throws(RequestFailure) -> Bool? {
        try args.expectCount(1...1)
        return args.bool(0, emptyKeeps: false)
    }

    private static func resizingType(_ args: OptionArguments, _ index: Int,
                                     required: Bool = false) throws(RequestFailure) -> ResizingType? {
        let known = "one of " + ResizingType.allCases.map(\.rawValue).joined(separator: ", ")
        guard args[index] != nil || required else { return nil }
        guard let type = ResizingType(rawValue: args.values[index]) else {
            throw args.invalid(index, "resizing type", expected: known)
        }
        return type
    }
}
