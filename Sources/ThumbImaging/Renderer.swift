import ThumbRequest
import ThumbRuntime

/// Turns source bytes into thumbnail bytes with MagickWand, on the calling thread: ping the
/// header and refuse floods, plan the geometry, decode with a shrink-on-load hint, run the
/// steps in imgproxy's order, encode.
public struct Renderer: Sendable {
    public struct Configuration: Sendable {
        /// imgproxy's max_src_resolution, in pixels (50 megapixels).
        public var maxSourcePixels = 50_000_000
        /// Let libjpeg decode at a reduced scale when the thumbnail is much smaller (off only
        /// to measure what it saves).
        public var shrinkOnLoad = true
        /// imgproxy's max_animation_frames: 1 renders the first frame of an animation only;
        /// above 1, animations with up to this many frames stay animated.
        public var maxAnimationFrames = 1
        /// The image `watermark` draws (imgproxy's WATERMARK_PATH or WATERMARK_DATA); nil: `wm`
        /// does nothing.
        public var watermark: [UInt8]?
        /// imgproxy's WATERMARK_OPACITY: the opacity a URL's `wm` asks for is a share of this.
        public var watermarkOpacity = 1.0
        /// Seconds a render may take (decode to encode); past it, 422 and the key is free again.
        public var maxRenderSeconds = 10.0
        /// The formats thumbd decodes (SOURCE_FORMATS). HEIC (libheif with libde265) and TIFF
        /// (libtiff) are off unless named: rare as web sources, their decoders have a long record
        /// of memory-safety bugs, and a decoder that crashes takes every request in flight with it.
        public var sourceFormats = SourceFormat.enabledByDefault
        /// What is written when neither the URL nor the client's Accept header names a format.
        public var preferredFormats = PreferredFormats.standard
        /// imgproxy Pro's BEST_FORMAT_MAX_RESOLUTION, in pixels: a best-format result larger than
        /// this is encoded in its first candidate only; 0: every candidate, whatever the size.
        public var bestFormatMaxPixels = 5_000_000

        public init() {}
    }

    public struct Rendered: Sendable {
        public let bytes: [UInt8]
        public let format: ImageFormat
        public let width: Int
        public let height: Int
        /// What autoquality chose, where it searched.
        public var autoQuality: ChosenQuality?
    }

    /// Before the geometry: what changes the source's colours, orientation or size.
    static let preparation: [any PreparationStep] = [
        ConvertToSRGB(),
        AutoOrient(),
        RotateAndFlip(),
        TrimBorders(),
    ]

    /// The render proper, in imgproxy's order. A new feature is a step and a line here.
    static let pipeline: [any RenderStep] = [
        CropSource(),
        Scale(),
        CropResult(),
        Filters(),
        Extend(),
        Pad(),
        FlattenAlpha(),
        DrawWatermark(),
        StripMetadata(),
    ]

    public let configuration: Configuration

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    public func render(_ source: [UInt8], sourceFormat: SourceFormat, options: ProcessingOptions) throws(ImagingFailure) -> Rendered {
        try checkEnabled(sourceFormat)
        let deadline = RenderDeadline(seconds: configuration.maxRenderSeconds)
        do throws(ImagingFailure) {
            return try render(source, sourceFormat: sourceFormat, options: options, deadline: deadline)
        } catch {
            // An operation the monitor stopped fails with ImageMagick's own message; say why.
            throw deadline.expired ? deadline.error : error
        }
    }

    func checkEnabled(_ sourceFormat: SourceFormat) throws(ImagingFailure) {
        guard configuration.sourceFormats.contains(sourceFormat) else {
            throw .unprocessable("\(sourceFormat.rawValue.uppercased()) sources are not enabled (SOURCE_FORMATS)")
        }
    }

    /// The URL's `max_src_resolution` where it gives one, else the configured limit.
    func maxPixels(for options: ProcessingOptions) -> Int {
        Int(options.maxSourceResolution.map { $0 * 1e6 } ?? Double(configuration.maxSourcePixels))
    }

    private func render(_ original: [UInt8], sourceFormat: SourceFormat, options: ProcessingOptions,
                        deadline: RenderDeadline) throws(ImagingFailure) -> Rendered {
        let source = sourceFormat == .png ? PNGCompressedText.stripped(original) ?? original : original
        let maxFrames = options.maxAnimationFrames ?? configuration.maxAnimationFrames
        let header = try Self.header(of: source, format: sourceFormat, maxPixels: maxPixels(for: options), maxFrames: maxFrames)
        let upright = Self.uprightSize(header, options: options)
        let animatedSource = header.frames > 1 && maxFrames > 1
        // Trimming changes the size the geometry starts from, so its plan waits for the pixels.
        var plan = options.trim == nil ? ResizePlan(sourceWidth: upright.width, sourceHeight: upright.height, options: options) : nil

        let image = MagickImage()
        image.watch(deadline)
        var hint = configuration.shrinkOnLoad ? plan.flatMap { Self.shrinkOnLoadHint(plan: $0, source: upright) } : nil
        if header.transposed { hint = hint.map { ($0.height, $0.width) } }
        let best = options.format == nil && options.bestFormat
            ? BestFormatCandidates(negotiated: options.bestNegotiated, preferred: configuration.preferredFormats) : nil
        let animated = animatedSource
            && (options.format?.supportsAnimation ?? best?.keepAnimation
                ?? configuration.preferredFormats.keepsAnimation(of: sourceFormat))
        let window = sourceFormat == .webp && hint != nil ? plan.flatMap { Self.decoderWindow(plan: $0, source: upright, options: options) } : nil
        let cut = try Self.decode(source, format: sourceFormat, header: header, hint: hint, window: window, animated: animated, into: image)
        if cut { plan = plan?.afterDecoderCut() }
        let transparent = options.background == nil && (image.hasAlpha || !options.padding.isEmpty || options.extend != nil)
        let candidates = best?.fitting(animated: image.frameCount > 1, transparent: transparent,
                                       commonTarget: options.autoQuality.isOn(width: image.width, height: image.height))
        let format = options.format ?? candidates?.first ?? configuration.preferredFormats.format(
            for: sourceFormat, animated: animatedSource, transparent: transparent)
        try image.forEachFrame { () throws(ImagingFailure) in
            for step in Self.preparation {
                try deadline.check()
                try step.apply(to: image, options: options)
            }
        }
        let resolved = plan ?? ResizePlan(sourceWidth: image.width, sourceHeight: image.height, options: options)
        let loadScale = Double(image.width) / Double(options.trim == nil ? upright.width : image.width)
        let context = RenderContext(options: options, plan: resolved, format: format, loadScale: loadScale,
                                    watermark: configuration.watermark, watermarkOpacity: configuration.watermarkOpacity)
        try image.forEachFrame { () throws(ImagingFailure) in
            for step in Self.pipeline {
                try deadline.check()
                try step.apply(to: image, in: context)
            }
        }
        guard let candidates else {
            let (bytes, chosen) = try Self.encode(image, as: format, options: options, deadline: deadline)
            return Rendered(bytes: bytes, format: format, width: image.width, height: image.height, autoQuality: chosen)
        }
        let tried = image.width * image.height > configuration.bestFormatMaxPixels && configuration.bestFormatMaxPixels > 0
            ? [format] : candidates
        let smallest = try Self.encodeSmallest(image, candidates: tried, options: options, deadline: deadline)
        return Rendered(bytes: smallest.bytes, format: smallest.format, width: image.width, height: image.height,
                        autoQuality: smallest.autoQuality)
    }

    struct Header {
        let width: Int
        let height: Int
        let frames: Int
        /// EXIF orientations 5 to 8 swap width and height.
        let transposed: Bool
        /// ImageMagick's reading of the header (nil for WebP): its profiles and orientation.
        let pinged: MagickImage?
    }

    /// Reads only the headers, and refuses a pixel flood or too long an animation before a
    /// single pixel is decoded. Every frame is checked, not only the first: a later one may be
    /// far larger, and an animation decodes them all. An animation's budget is its pixels over
    /// all frames: where `maxFrames` is above one (`.max` for an answer that is the source itself,
    /// every frame). The size is the first frame's, or its canvas's where frames are drawn on one.
    static func header(of source: [UInt8], format: SourceFormat, maxPixels: Int, maxFrames: Int) throws(ImagingFailure) -> Header {
        typealias Size = (width: Int, height: Int)
        // Per frame: the size the render sees, and the larger of frame and canvas, which decoding costs.
        let (frames, transposed): ([(seen: Size, decoded: Size)], Bool)
        var pinged: MagickImage?
        if format == .webp {
            // ImageMagick reads no orientation from a WebP either; libwebp keeps frames inside the canvas.
            let header = try WebPHeader(source)
            let canvas = (width: header.width, height: header.height)
            (frames, transposed) = (Array(repeating: (canvas, canvas), count: max(1, header.frames)), false)
        } else {
            let header = MagickImage()
            try header.ping(source)
            frames = header.frameSizes.map { frame in
                guard format.drawsFramesOnCanvas else { return (frame.size, frame.size) }
                let canvasIsLarger = frame.canvas.width * frame.canvas.height > frame.size.width * frame.size.height
                return (frame.canvas, canvasIsLarger ? frame.canvas : frame.size)
            }
            transposed = header.isTransposed
            pinged = header
        }
        guard let first = frames.first?.seen, frames.allSatisfy({ $0.seen.width > 0 && $0.seen.height > 0 }) else {
            throw .unprocessable("image has no pixels")
        }
        if maxFrames > 1, frames.count > maxFrames {
            throw .overLimit("animation has \(frames.count) frames, over the limit of \(maxFrames)")
        }
        for (index, frame) in frames.enumerated() where frame.decoded.width * frame.decoded.height > maxPixels {
            let what = frames.count > 1 ? "frame \(index + 1) of \(frames.count)" : "image"
            throw .overLimit("\(what) is \(frame.decoded.width)x\(frame.decoded.height), over the limit of \(maxPixels) pixels")
        }
        let pixels = frames.map { $0.decoded.width * $0.decoded.height }
        let decoded = maxFrames > 1 ? pixels.reduce(0, +) : pixels[0]
        guard decoded <= maxPixels else {
            throw .overLimit("animation of \(frames.count) frames is \(decoded) pixels, over the limit of \(maxPixels)")
        }
        return Header(width: first.width, height: first.height, frames: frames.count, transposed: transposed,
                      pinged: pinged)
    }

    /// Decodes every frame when `animated`, else the first, each the whole canvas a viewer sees:
    /// an animated WebP by libwebp's animation decoder; else at the smallest size the hint allows
    /// (a progressive JPEG at 1/8 from its DC scans alone, else libjpeg scaling by the DCT;
    /// libwebp's rescaler; a PNG averaged in squares as libpng decodes it); else ImageMagick
    /// reads the whole file.
    /// A still WebP is cut to `window` while it decodes, if one is given: returns true then.
    static func decode(_ source: [UInt8], format: SourceFormat, header: Header, hint: (width: Int, height: Int)?,
                       window: (rect: PixelRect, size: (width: Int, height: Int))?, animated: Bool,
                       into image: MagickImage) throws(ImagingFailure) -> Bool {
        if format == .webp, try image.readAnimatedWebP(source, frames: animated ? header.frames : 1) { return false }
        if let hint {
            switch format {
            case .jpeg:
                if let pinged = header.pinged, image.readProgressiveJPEGAtEighth(source, header: pinged, hint: hint) { return false }
                image.setOption("jpeg:size", "\(hint.width)x\(hint.height)")
            case .webp:
                if try image.readWebP(source, window: window?.rect, scaledFor: window?.size ?? hint) { return window != nil }
            case .png:
                if let pinged = header.pinged, image.readPNG(source, header: pinged, scaledFor: hint) { return false }
            default:
                break
            }
        }
        if animated { try image.read(source) } else { try image.readFirstFrame(source) }
        if animated || format.drawsFramesOnCanvas { try image.coalesce() }
        return false
    }

    /// The part of the source a decoder that cuts (libwebp) needs to read, and the size it is to
    /// be scaled to, when the result is a window the geometry alone fixes and nothing turns the
    /// source before the cut. Whole pixels around the window, its origin even: libwebp cuts its
    /// half-resolution chroma at even offsets (and would move an odd origin itself).
    static func decoderWindow(plan: ResizePlan, source: (width: Int, height: Int),
                              options: ProcessingOptions) -> (rect: PixelRect, size: (width: Int, height: Int))? {
        guard options.rotate == 0, !options.flipHorizontal, !options.flipVertical,
              let window = plan.sourceWindow(width: source.width, height: source.height),
              let result = plan.resultCrop else { return nil }
        let left = Int(window.x.rounded(.down)) & ~1
        let top = Int(window.y.rounded(.down)) & ~1
        let right = min(source.width, Int((window.x + window.width).rounded(.up)))
        let bottom = min(source.height, Int((window.y + window.height).rounded(.up)))
        guard right > left, bottom > top else { return nil }
        return (PixelRect(x: left, y: top, width: right - left, height: bottom - top), (result.width, result.height))
    }

    /// The size the viewer sees: after EXIF orientation (when applied) and `rotate`.
    static func uprightSize(_ header: Header, options: ProcessingOptions) -> (width: Int, height: Int) {
        var size = (width: header.width, height: header.height)
        if header.transposed && options.autoRotate { size = (size.height, size.width) }
        if options.rotate == 90 || options.rotate == 270 { size = (size.height, size.width) }
        return size
    }

    /// Encodes at the asked quality, or the one autoquality finds for a lossy still; with
    /// `max_bytes`, then at the next of the options' quality steps while the result does not fit;
    /// each encode only while `deadline` has not passed.
    static func encode(_ image: MagickImage, as format: ImageFormat, options: ProcessingOptions,
                       deadline: RenderDeadline) throws(ImagingFailure) -> (bytes: [UInt8], autoQuality: ChosenQuality?) {
        if format == .png && options.pngQuantize {
            try deadline.check()
            return (try image.encodePalettePNG(colors: options.pngQuantizationColors), nil)
        }
        var bytes: [UInt8] = []
        var steps = options.qualitySteps(for: format)[...]
        var chosen: ChosenQuality?
        if image.frameCount == 1, options.autoQuality.applies(to: format, width: image.width, height: image.height) {
            let searched = try image.encodeSearchingQuality(as: format, options: options, deadline: deadline)
            (bytes, chosen) = (searched.bytes, searched.chosen)
            steps = options.qualitySteps(for: format, from: searched.chosen.quality).dropFirst()
        }
        for quality in steps {
            if !bytes.isEmpty, options.maxBytes == 0 || bytes.count <= options.maxBytes { break }
            try deadline.check()
            // Lowered for max_bytes, a JPEG keeps the chroma autoquality chose, where it chose one.
            let fullChroma = if let chosen, options.autoQualitySearchesChroma(for: format) {
                chosen.fullChroma
            } else {
                options.keepsFullChroma(format, atQuality: quality)
            }
            bytes = try image.encode(as: format, quality: quality, fullChroma: fullChroma, options: options)
        }
        return (bytes, chosen)
    }

    /// The best format: each candidate encoded as `encode` would (autoquality's target where it
    /// is on, else the format's quality), the smallest kept; candidates after the first only while
    /// the encodes spent stay under BestFormat.maxEncodes.
    static func encodeSmallest(_ image: MagickImage, candidates: [ImageFormat], options: ProcessingOptions,
                               deadline: RenderDeadline) throws(ImagingFailure)
        -> (bytes: [UInt8], format: ImageFormat, autoQuality: ChosenQuality?) {
        var smallest: (bytes: [UInt8], format: ImageFormat, autoQuality: ChosenQuality?)?
        var encodes = 0
        for format in candidates where smallest == nil || encodes < BestFormat.maxEncodes {
            try deadline.check()
            let (bytes, chosen) = try encode(image, as: format, options: options, deadline: deadline)
            encodes += chosen?.encodes ?? 1
            if smallest.map({ bytes.count < $0.bytes.count }) ?? true { smallest = (bytes, format, chosen) }
        }
        return smallest!
    }

    /// libjpeg can decode at 1/2, 1/4 or 1/8 scale while reading. That only pays when the
    /// scaled size is well below the source; near full size the hint costs without saving.
    /// With a crop before the scale, the hint is for the whole source at the same scale.
    static func shrinkOnLoadHint(plan: ResizePlan, source: (width: Int, height: Int)) -> (width: Int, height: Int)? {
        let base = plan.sourceCrop.map { (width: $0.width, height: $0.height) } ?? source
        let scale = max(Double(plan.scaledWidth) / Double(base.width), Double(plan.scaledHeight) / Double(base.height))
        guard scale * 3 <= 1 else { return nil }
        guard plan.sourceCrop != nil else { return (plan.scaledWidth, plan.scaledHeight) }
        return (max(1, Int((Double(source.width) * scale).rounded(.up))), max(1, Int((Double(source.height) * scale).rounded(.up))))
    }
}
