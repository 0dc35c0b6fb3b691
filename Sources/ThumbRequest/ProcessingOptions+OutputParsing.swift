import ThumbRuntime

/// The options after geometry: colour and effects, metadata, the output, how the response is
/// handled, and the security options.
extension ProcessingOptions {
    /// `name` is one of the options after geometry; `apply` hands only those here.
    mutating func applyOutput(_ name: OptionName, _ args: OptionArguments,
                              allowSecurityOptions: Bool) throws(RequestFailure) {
        switch name {
        // Colour and effects
        case .background: try applyBackground(args)
        case .blur:
            try args.expectCount(1...1)
            blur = try args.decimal(0, .from(0, to: Self.maxFactor), required: true) ?? blur
        case .sharpen:
            try args.expectCount(1...1)
            sharpen = try args.decimal(0, .from(0, to: Self.maxFactor), required: true) ?? sharpen
        case .pixelate: pixelate = try Self.dimension(args) ?? pixelate
        case .watermark: try applyWatermark(args)
        // Metadata
        case .stripMetadata: stripMetadata = try Self.bool(args) ?? stripMetadata
        case .keepCopyright: keepCopyright = try Self.bool(args) ?? keepCopyright
        case .stripColorProfile: stripColorProfile = try Self.bool(args) ?? stripColorProfile
        // Output
        case .quality:
            try args.expectCount(1...1)
            quality = try args.integer(0, in: 0...100, required: true) ?? quality
        case .formatQuality: try applyFormatQuality(args)
        case .autoquality: try autoQuality.apply(args)
        case .maxBytes:
            try args.expectCount(1...1)
            maxBytes = try args.integer(0, in: 0...Self.maxBytesLimit, required: true) ?? maxBytes
        case .subsampleBelow:
            try args.expectCount(1...1)
            subsampleBelow = try args.integer(0, in: 0...101, required: true) ?? subsampleBelow
        case .format:
            try args.expectCount(1...1)
            if args.values[0].lowercased() == BestFormat.name {
                (format, bestFormat) = (nil, true)
            } else if let named = try Self.format(args, 0) {
                (format, bestFormat) = (named, false)
            }
        case .skipProcessing: try applySkipProcessing(args)
        // Handling
        case .raw: raw = try Self.bool(args) ?? raw
        case .cachebuster:
            try args.expectCount(1...1)
            cacheBuster = args.values[0]
        case .expires: try applyExpires(args)
        case .filename: try applyFilename(args)
        case .returnAttachment: returnAttachment = try Self.bool(args) ?? returnAttachment
        // Security
        case _ where name.isSecurityOption:
            guard allowSecurityOptions else { throw .forbidden("security options are not allowed") }
            try applySecurity(name, args)
        case .preserveHDR, .enforceThumbnail:
            throw .invalidURL("option \(args.name) is not supported")
        default:
            // Geometry and presets: `apply` and OptionParser take them.
            throw .invalidURL("unknown option \(args.name)")
        }
    }

    static let maxBytesLimit = 1 << 40

    // MARK: Colour and effects

    /// `R:G:B` (0–255 each) or `RRGGBB`; an empty argument turns the background off again.
    private mutating func applyBackground(_ args: OptionArguments) throws(RequestFailure) {
        switch args.count {
        case 1:
            background = try args.hexColor(0)
        case 3:
            var channels: [UInt8] = []
            for index in 0..<3 {
                guard let value = try args.integer(index, in: 0...255) else {
                    throw .invalidURL("\(args.name): R:G:B needs all three channels")
                }
                channels.append(UInt8(value))
            }
            background = RGBColor(red: channels[0], green: channels[1], blue: channels[2])
        default:
            throw .invalidURL("\(args.name) takes 1 or 3 arguments, got \(args.count)")
        }
    }

    /// `opacity:position:x:y:scale`; opacity 0 turns the watermark off.
    private mutating func applyWatermark(_ args: OptionArguments) throws(RequestFailure) {
        try args.expectCount(1...5)
        var mark = watermark ?? Watermark(opacity: 0)
        mark.opacity = try args.decimal(0, .from(0, to: 1), what: "opacity", required: true) ?? mark.opacity
        if let text = args[1] {
            if text == "re" {
                mark.position = .replicate
            } else if let anchor = Gravity.Anchor(rawValue: text), anchor.isCompass {
                mark.position = .anchored(anchor)
            } else {
                let known = Gravity.Anchor.allCases.filter(\.isCompass).map(\.rawValue) + ["re"]
                throw args.invalid(1, "position", expected: "one of " + known.joined(separator: ", "))
            }
        }
        let limit = Double(Self.maxDimension)
        mark.offsetX = try args.decimal(2, .from(-limit, to: limit), what: "offset") ?? mark.offsetX
        mark.offsetY = try args.decimal(3, .from(-limit, to: limit), what: "offset") ?? mark.offsetY
        mark.scale = try args.decimal(4, .from(0, to: Self.maxFactor), what: "scale") ?? mark.scale
        watermark = mark.opacity > 0 ? mark : nil
    }

    // MARK: Output

    /// `format:quality` pairs; quality 0 removes the format's entry (back to `q` or the default).
    private mutating func applyFormatQuality(_ args: OptionArguments) throws(RequestFailure) {
        guard args.count.isMultiple(of: 2) else {
            let last = args.values[args.count - 1].debugDescription
            throw .invalidURL("\(args.name) takes format:quality pairs: \(last) has no quality")
        }
        for index in stride(from: 0, to: args.count, by: 2) {
            let format = try Self.format(args, index, allowingOthers: true)
            guard let value = try args.integer(index + 1, in: 0...100, what: "quality", required: true),
                  let format else { continue }
            formatQuality[format] = value == 0 ? nil : value
        }
    }

    private mutating func applySkipProcessing(_ args: OptionArguments) throws(RequestFailure) {
        for index in args.values.indices {
            if let format = try Self.format(args, index, allowingOthers: true) {
                skipProcessing.insert(format)
            }
        }
    }

    /// A format thumbd writes, required; with `allowingOthers`, also the other formats imgproxy
    /// knows, which read as nil (no output of thumbd can be in them, so an `fq` or `skp` for them
    /// is moot).
    private static func format(_ args: OptionArguments, _ index: Int,
                               allowingOthers: Bool = false) throws(RequestFailure) -> ImageFormat? {
        let text = args.values[index]
        if let format = ImageFormat(extension: text) { return format }
        if allowingOthers, ImageFormat.otherImgproxyNames.contains(text.lowercased()) { return nil }
        throw args.invalid(index, "format", expected: "one of \(ImageFormat.extensionNames)")
    }

    // MARK: Handling

    /// A unix timestamp; 0 or below means the URL does not expire, as in imgproxy.
    private mutating func applyExpires(_ args: OptionArguments) throws(RequestFailure) {
        try args.expectCount(1...1)
        guard let timestamp = Int(args.values[0]) else { throw args.invalid(0, expected: "a unix timestamp") }
        expires = timestamp > 0 ? timestamp : nil
    }

    /// `filename[:encoded]`: percent-escaped, or base64url when `encoded` is true. Empty: none.
    private mutating func applyFilename(_ args: OptionArguments) throws(RequestFailure) {
        try args.expectCount(1...2)
        let encoded = args.bool(1) ?? false
        guard let text = args[0] else {
            filename = nil
            return
        }
        let bytes = encoded ? Base64URL.decode(Substring(text)) : PercentDecoding.decode(Array(text.utf8))
        guard let bytes, let name = String(validating: bytes, as: UTF8.self),
              !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw args.invalid(0, expected: encoded ? "base64url of a UTF-8 name" : "a percent-escaped UTF-8 name")
        }
        filename = name
    }

    // MARK: Security

    private mutating func applySecurity(_ name: OptionName, _ args: OptionArguments) throws(RequestFailure) {
        try args.expectCount(1...1)
        switch name {
        case .maxSrcResolution:
            maxSourceResolution = try args.decimal(0, .above(0, to: Self.maxFactor), required: true) ?? maxSourceResolution
        case .maxSrcFileSize:
            maxSourceFileSize = try args.integer(0, in: 1...Self.maxBytesLimit, required: true) ?? maxSourceFileSize
        case .maxAnimationFrames:
            maxAnimationFrames = try args.integer(0, in: 1...1_000_000, required: true) ?? maxAnimationFrames
        case .maxResultDimension:
            maxResultDimension = try args.integer(0, in: 1...Int(Int32.max), required: true) ?? maxResultDimension
        default:
            throw .invalidURL("\(args.name) is not supported")
        }
    }
}
