import CMagickWand
import Foundation
import ThumbRequest
import ThumbRuntime

/// Owns one MagickWand. Not Sendable: a wand is used by one thread from read to encode.
/// Every failing call turns into an ImagingFailure carrying ImageMagick's own message.
final class MagickImage {
    private(set) var wand: OpaquePointer {
        didSet { watch(deadline) }
    }
    /// Kept alive here: ImageMagick holds only an unretained pointer to it.
    private var deadline: RenderDeadline?

    init() {
        wand = NewMagickWand()
    }

    deinit { DestroyMagickWand(wand) }

    /// Makes every ImageMagick operation on this wand (from the read on) fail once `deadline`
    /// has passed; a wand taken over from an operation (coalesce, first frame) is watched too.
    func watch(_ deadline: RenderDeadline?) {
        self.deadline = deadline
        guard let deadline else { return }
        MagickSetProgressMonitor(wand, renderProgressMonitor, Unmanaged.passUnretained(deadline).toOpaque())
    }

    var width: Int { MagickGetImageWidth(wand) }
    var height: Int { MagickGetImageHeight(wand) }
    var frameCount: Int { MagickGetNumberImages(wand) }
    var orientation: OrientationType { MagickGetImageOrientation(wand) }
    /// EXIF orientations 5 to 8 swap width and height.
    var isTransposed: Bool { Self.isTransposed(orientation) }

    static func isTransposed(_ orientation: OrientationType) -> Bool {
        [LeftTopOrientation, RightTopOrientation, RightBottomOrientation, LeftBottomOrientation].contains(orientation)
    }

    /// Reads only the header: dimensions and orientation, no pixels. The first frame is left
    /// current (ImageMagick leaves the last): a render starts from its size and canvas.
    func ping(_ bytes: [UInt8]) throws(ImagingFailure) {
        let ok = bytes.withUnsafeBytes { MagickPingImageBlob(wand, $0.baseAddress, $0.count) }
        try check(ok, or: { .undecodable("cannot read image header: \($0)") })
        MagickSetFirstIterator(wand)
    }

    /// Decodes the file; one its decoder complained of as broken, though it returned pixels (a
    /// truncated or corrupt JPEG, filled with grey), is unprocessable: see DecoderComplaint.
    func read(_ bytes: [UInt8]) throws(ImagingFailure) {
        let ok = bytes.withUnsafeBytes { MagickReadImageBlob(wand, $0.baseAddress, $0.count) }
        try check(ok, or: { .undecodable("cannot decode image: \($0)") })
        if let broken = readComplaints.first(where: \.meansBrokenFile) {
            throw .undecodable("image is damaged: \(broken.message)")
        }
    }

    /// Reads the first frame alone: ImageMagick's readers stop after the scene asked for, where a
    /// whole read would decode every frame of an animation only for the rest to be dropped.
    func readFirstFrame(_ bytes: [UInt8]) throws(ImagingFailure) {
        MagickSetFilename(wand, "[0]")
        defer { MagickSetFilename(wand, "") }
        try read(bytes)
        try keepFirstFrame()
    }

    func setOption(_ key: String, _ value: String) {
        MagickSetOption(wand, key, value)
    }

    /// The current frame alone, as an image of its own watched by the same deadline.
    func currentFrame() throws(ImagingFailure) -> MagickImage {
        guard let frame = MagickGetImage(wand) else { throw failure { .internalFailure("cannot copy frame: \($0)") } }
        let copy = MagickImage(owning: frame)
        copy.watch(deadline)
        return copy
    }

    private init(owning wand: OpaquePointer) {
        self.wand = wand
    }

    /// Drops every frame but the first.
    func keepFirstFrame() throws(ImagingFailure) {
        guard frameCount > 1 else { return }
        MagickSetFirstIterator(wand)
        guard let first = MagickGetImage(wand) else { throw failure { .internalFailure("cannot take first frame: \($0)") } }
        DestroyMagickWand(wand)
        wand = first
    }

    /// Turns frames into whole pictures of their canvas (a GIF frame may be a partial update at
    /// an offset), so each can be scaled and cropped on its own; delays, loop count and the
    /// disposal that plays them back as before are kept. A lone frame that already covers its
    /// canvas is left as it is.
    func coalesce() throws(ImagingFailure) {
        MagickSetFirstIterator(wand)
        let covered = coversCanvas
        guard frameCount > 1 || !covered else { return }
        // Canvas no frame covers is transparent, as browsers show it. Coalescing fills it with the
        // GIF's background colour instead when the first frame has no alpha channel to carry it.
        if !covered {
            try check(MagickSetImageAlphaChannel(wand, SetAlphaChannel), or: { .internalFailure("alpha: \($0)") })
        }
        guard let whole = MagickCoalesceImages(wand) else { throw failure { .undecodable("cannot read animation: \($0)") } }
        DestroyMagickWand(wand)
        wand = whole
    }

    /// Runs `body` with each frame current in turn (wand operations act on the current frame).
    /// The current frame's delay. Browsers show a delay of 10 ms or less as 100 ms (and libwebp
    /// takes no frame of 0 ms): written so, it plays as it did.
    var delayMilliseconds: Int {
        let milliseconds = MagickGetImageDelay(wand) * 1000 / max(1, MagickGetImageTicksPerSecond(wand))
        return milliseconds <= 10 ? 100 : milliseconds
    }

    /// Throws the render's timeout once the deadline this wand is watched by has passed: for
    /// work outside ImageMagick, which its monitor does not see.
    func checkDeadline() throws(ImagingFailure) {
        try deadline?.check()
    }

    func forEachFrame<Failure: Error>(_ body: () throws(Failure) -> Void) throws(Failure) {
        MagickResetIterator(wand)
        while MagickNextImage(wand) == MagickTrue {
            try body()
        }
    }

    func autoOrient() throws(ImagingFailure) {
        try check(MagickAutoOrientImage(wand), or: { .internalFailure("auto-orient: \($0)") })
    }

    /// Resizes and strips profiles and comments: ImageMagick's fast path for thumbnails.
    func thumbnail(width: Int, height: Int) throws(ImagingFailure) {
        try check(MagickThumbnailImage(wand, width, height), or: { .internalFailure("thumbnail: \($0)") })
    }

    func crop(_ rect: PixelRect) throws(ImagingFailure) {
        try check(MagickCropImage(wand, rect.width, rect.height, rect.x, rect.y), or: { .internalFailure("crop: \($0)") })
        // The crop leaves a virtual canvas offset that GIF and PNG would otherwise keep.
        try check(MagickSetImagePage(wand, 0, 0, 0, 0), or: { .internalFailure("page: \($0)") })
    }

    var hasAlpha: Bool { MagickGetImageAlphaChannel(wand) == MagickTrue }

    /// Resizes keeping profiles and EXIF, for when metadata is to be kept.
    func resize(width: Int, height: Int) throws(ImagingFailure) {
        try check(MagickResizeImage(wand, width, height, LanczosFilter, 1.0), or: { .internalFailure("resize: \($0)") })
    }

    func rotate(degrees: Int) throws(ImagingFailure) {
        try withColor("none") { (color) throws(ImagingFailure) in
            try check(MagickRotateImage(wand, color, Double(degrees)), or: { .internalFailure("rotate: \($0)") })
        }
        try check(MagickSetImagePage(wand, 0, 0, 0, 0), or: { .internalFailure("page: \($0)") })
    }

    /// Mirror left to right.
    func flop() throws(ImagingFailure) {
        try check(MagickFlopImage(wand), or: { .internalFailure("flop: \($0)") })
    }

    /// Mirror top to bottom.
    func flip() throws(ImagingFailure) {
        try check(MagickFlipImage(wand), or: { .internalFailure("flip: \($0)") })
    }

    /// The box left after trimming borders of the corner colour (within `fuzz`, 0...1 of the
    /// range), measured on a copy; nil when nothing would be left.
    func trimmedBox(fuzz: Double) throws(ImagingFailure) -> PixelRect? {
        guard let copy = CloneMagickWand(wand) else { throw .internalFailure("clone failed") }
        defer { DestroyMagickWand(copy) }
        guard MagickTrimImage(copy, fuzz * 65_535) == MagickTrue else { return nil }
        var width = 0, height = 0, x = 0, y = 0
        MagickGetImagePage(copy, &width, &height, &x, &y)
        let box = PixelRect(x: x, y: y, width: MagickGetImageWidth(copy), height: MagickGetImageHeight(copy))
        return box.width > 1 || box.height > 1 ? box : nil
    }

    /// Puts the image at (x, y) on a larger canvas of `color` (ImageMagick's extent).
    func extend(toWidth width: Int, height: Int, x: Int, y: Int, color: String) throws(ImagingFailure) {
        try withColor(color) { (background) throws(ImagingFailure) in
            try check(MagickSetImageBackgroundColor(wand, background), or: { .internalFailure("background: \($0)") })
        }
        if color == "none" {
            MagickSetImageAlphaChannel(wand, SetAlphaChannel)
        }
        try check(MagickExtentImage(wand, width, height, -x, -y), or: { .internalFailure("extent: \($0)") })
    }

    /// Multiplies every pixel's opacity by `opacity` (0...1).
    func fade(to opacity: Double) throws(ImagingFailure) {
        guard opacity < 1 else { return }
        MagickSetImageAlphaChannel(wand, SetAlphaChannel)
        try check(MagickEvaluateImageChannel(wand, AlphaChannel, MultiplyEvaluateOperator, opacity),
                  or: { .internalFailure("opacity: \($0)") })
    }

    /// This image repeated from the top-left corner over a transparent `width` x `height` canvas:
    /// one copy a row and tile, where drawing each tile would be one composite a tile.
    func tiled(width: Int, height: Int) throws(ImagingFailure) -> MagickImage {
        let canvas = MagickImage()
        canvas.watch(deadline)
        try withColor("none") { (transparent) throws(ImagingFailure) in
            try canvas.check(MagickNewImage(canvas.wand, width, height, transparent), or: { .internalFailure("canvas: \($0)") })
        }
        // Copy, not Over, is ImageMagick's row-copying path: the tile's transparency is kept as it is.
        MagickSetImageCompose(canvas.wand, CopyCompositeOp)
        guard let layer = MagickTextureImage(canvas.wand, wand) else { throw canvas.failure { .internalFailure("tile: \($0)") } }
        let tiled = MagickImage(owning: layer)
        tiled.watch(deadline)
        return tiled
    }

    /// Draws `other` over this image with its top-left corner at (x, y).
    func composite(_ other: MagickImage, x: Int, y: Int) throws(ImagingFailure) {
        try check(MagickCompositeImage(wand, other.wand, OverCompositeOp, x, y), or: { .internalFailure("composite: \($0)") })
    }

    /// Composes the image over an opaque colour, for formats without transparency.
    func flatten(onto color: String) throws(ImagingFailure) {
        try withColor(color) { (background) throws(ImagingFailure) in
            try check(MagickSetImageBackgroundColor(wand, background), or: { .internalFailure("background: \($0)") })
        }
        try check(MagickSetImageAlphaChannel(wand, RemoveAlphaChannel), or: { .internalFailure("flatten: \($0)") })
    }

    var colorspace: ColorspaceType { MagickGetImageColorspace(wand) }

    /// Whether an ICC profile is embedded, without copying it out.
    var hasICCProfile: Bool {
        GetImageFromMagickWand(wand).flatMap { GetImageProfile($0, "icc") } != nil
    }

    /// The embedded ICC profile, if any.
    var iccProfile: [UInt8]? {
        var length = 0
        guard let profile = MagickGetImageProfile(wand, "icc", &length), length > 0 else { return nil }
        defer { MagickRelinquishMemory(profile) }
        return Array(UnsafeBufferPointer(start: profile, count: length))
    }

    /// Converts the pixels from the embedded profile to `profile` (and embeds it).
    func convert(toProfile profile: [UInt8]) throws(ImagingFailure) {
        let ok = profile.withUnsafeBytes { MagickProfileImage(wand, "icc", $0.baseAddress, $0.count) }
        try check(ok, or: { .undecodable("cannot convert colour profile: \($0)") })
    }

    var isCMYK: Bool { colorspace == CMYKColorspace }

    /// Whether every pixel is grey, as ImageMagick's JPEG writer looks at them to write one channel.
    var isGray: Bool {
        guard let image = GetImageFromMagickWand(wand) else { return false }
        return IdentifyImageGray(image, &image.pointee.exception) != UndefinedType
    }

    func transformToSRGB() throws(ImagingFailure) {
        try check(MagickTransformImageColorspace(wand, sRGBColorspace), or: { .internalFailure("colorspace: \($0)") })
    }

    func property(_ name: String) -> String? {
        guard let value = MagickGetImageProperty(wand, name) else { return nil }
        defer { MagickRelinquishMemory(value) }
        return String(cString: value)
    }

    func setProperty(_ name: String, _ value: String) {
        MagickSetImageProperty(wand, name, value)
    }

    func removeProfile(_ name: String) {
        var length = 0
        if let removed = MagickRemoveImageProfile(wand, name, &length) { MagickRelinquishMemory(removed) }
    }

    func strip() throws(ImagingFailure) {
        try check(MagickStripImage(wand), or: { .internalFailure("strip: \($0)") })
    }

    private func withColor(_ name: String, _ body: (OpaquePointer) throws(ImagingFailure) -> Void) throws(ImagingFailure) {
        let color = NewPixelWand()!
        defer { DestroyPixelWand(color) }
        PixelSetColor(color, name)
        try body(color)
    }

    /// Every frame gets the format and quality: an animation is written in its first frame's.
    /// `fullChroma`: a JPEG or an AVIF keeps its chroma whole (4:4:4) rather than 4:2:0. The
    /// encoders' efforts are the options' (`webpEffort`, `avifSpeed`, `jxlEffort`).
    func encode(as format: ImageFormat, quality: Int, fullChroma: Bool, options: ProcessingOptions) throws(ImagingFailure) -> [UInt8] {
        let webpEffort = options.webpEffort
        if format == .webp && frameCount > 1 { return try encodeAnimatedWebP(quality: quality, effort: webpEffort) }
        if format == .avif { return try encodeAVIF(quality: quality, fullChroma: fullChroma, speed: options.avifSpeed) }
        if format == .jxl { return try encodeJXL(quality: quality, effort: options.jxlEffort) }
        try forEachFrame { () throws(ImagingFailure) in
            try check(MagickSetImageFormat(wand, format.magickName), or: { .undecodable("cannot write \(format.rawValue): \($0)") })
            // PNG and GIF read the quality as compression settings: theirs stay ImageMagick's default (0).
            MagickSetImageCompressionQuality(wand, format == .png || format == .gif ? 0 : quality)
            // Progressive JPEG; nothing else interlaced, even after a JPEG encode of the same
            // picture (the best format tries several).
            MagickSetImageInterlaceScheme(wand, format == .jpeg ? PlaneInterlace : NoInterlace)
        }
        MagickSetInterlaceScheme(wand, format == .jpeg ? PlaneInterlace : NoInterlace)
        if format == .jpeg {
            // ImageMagick writes a grey image as one channel, which the first factor then labels.
            let luma = fullChroma || isGray ? 1.0 : 2.0
            MagickSetSamplingFactors(wand, 3, [luma, 1.0, 1.0])
        }
        if format == .png {
            // ImageMagick stamps a PNG with the time it wrote it (tIME, date:create, date:modify),
            // not the source's: bytes that say nothing and differ from one render to the next.
            setOption("png:exclude-chunk", "date,time")
        }
        if format == .webp {
            // Sharp RGB to YUV (libvips's smart_subsample): fewer bytes at equal SSIMULACRA2 at every
            // quality measured (bench/quality). ImageMagick 6.9.11 drops webp:use-sharp-yuv; libwebp
            // reads preprocessing's bit 4 as the same switch.
            setOption("webp:preprocessing", "4")
            setOption("webp:method", "\(webpEffort)")
        }
        var length = 0
        let frames = frameCount > 1
        guard let blob = frames ? MagickGetImagesBlob(wand, &length) : MagickGetImageBlob(wand, &length) else {
            throw failure { .undecodable("cannot encode \(format.rawValue): \($0)") }
        }
        defer { MagickRelinquishMemory(blob) }
        return Array(UnsafeBufferPointer(start: blob, count: length))
    }

    func check(_ result: MagickBooleanType, or error: (String) -> ImagingFailure) throws(ImagingFailure) {
        guard result == MagickTrue else { throw failure(error) }
    }

    private func failure(_ error: (String) -> ImagingFailure) -> ImagingFailure {
        var severity = UndefinedException
        guard let message = MagickGetException(wand, &severity) else { return error("ImageMagick gave no reason") }
        defer { MagickRelinquishMemory(message) }
        MagickClearException(wand)
        let text = String(cString: message)
        let described = error(text.isEmpty ? "ImageMagick gave no reason" : text)
        // Past the limits thumbd gives ImageMagick, the image is at fault, not thumbd: 422, not 500.
        if severity == ResourceLimitError, case .internalFailure(let detail) = described {
            return .undecodable("image is over ImageMagick's resource limits: \(detail)")
        }
        return described
    }
}
