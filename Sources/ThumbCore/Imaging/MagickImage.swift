import CMagickWand
import Foundation

/// Owns one MagickWand. Not Sendable: a wand is used by one thread from read to encode.
/// Every failing call turns into a ThumbError carrying ImageMagick's own message.
final class MagickImage {
    private(set) var wand: OpaquePointer

    init() {
        wand = NewMagickWand()
    }

    deinit { DestroyMagickWand(wand) }

    var width: Int { MagickGetImageWidth(wand) }
    var height: Int { MagickGetImageHeight(wand) }
    var frameCount: Int { MagickGetNumberImages(wand) }
    var orientation: OrientationType { MagickGetImageOrientation(wand) }

    /// Reads only the header: dimensions and orientation, no pixels.
    func ping(_ bytes: [UInt8]) throws(ThumbError) {
        let ok = bytes.withUnsafeBytes { MagickPingImageBlob(wand, $0.baseAddress, $0.count) }
        try check(ok, or: { .unprocessable("cannot read image header: \($0)") })
    }

    /// libjpeg reports a truncated file only as a warning, recorded on the image rather than the
    /// wand, and fills the rest with grey; a thumbnail of that would be cached for good.
    func read(_ bytes: [UInt8]) throws(ThumbError) {
        let ok = bytes.withUnsafeBytes { MagickReadImageBlob(wand, $0.baseAddress, $0.count) }
        try check(ok, or: { .unprocessable("cannot decode image: \($0)") })
        guard let exception = GetImageFromMagickWand(wand)?.pointee.exception,
              exception.severity == CorruptImageWarning, let reason = exception.reason else { return }
        let text = String(cString: reason)
        if text.localizedCaseInsensitiveContains("premature end") {
            throw .unprocessable("image is truncated: \(text)")
        }
    }

    func setOption(_ key: String, _ value: String) {
        MagickSetOption(wand, key, value)
    }

    /// Drops every frame but the first (animation is not kept).
    func keepFirstFrame() throws(ThumbError) {
        guard frameCount > 1 else { return }
        MagickSetFirstIterator(wand)
        guard let first = MagickGetImage(wand) else { throw failure { .internalFailure("cannot take first frame: \($0)") } }
        DestroyMagickWand(wand)
        wand = first
    }

    func autoOrient() throws(ThumbError) {
        try check(MagickAutoOrientImage(wand), or: { .internalFailure("auto-orient: \($0)") })
    }

    /// Resizes and strips profiles and comments: ImageMagick's fast path for thumbnails.
    func thumbnail(width: Int, height: Int) throws(ThumbError) {
        try check(MagickThumbnailImage(wand, width, height), or: { .internalFailure("thumbnail: \($0)") })
    }

    func crop(_ rect: PixelRect) throws(ThumbError) {
        try check(MagickCropImage(wand, rect.width, rect.height, rect.x, rect.y), or: { .internalFailure("crop: \($0)") })
        // The crop leaves a virtual canvas offset that GIF and PNG would otherwise keep.
        try check(MagickSetImagePage(wand, 0, 0, 0, 0), or: { .internalFailure("page: \($0)") })
    }

    var hasAlpha: Bool { MagickGetImageAlphaChannel(wand) == MagickTrue }

    /// Composes the image over an opaque colour, for formats without transparency.
    func flatten(onto color: String) throws(ThumbError) {
        let background = NewPixelWand()
        defer { DestroyPixelWand(background) }
        PixelSetColor(background, color)
        try check(MagickSetImageBackgroundColor(wand, background), or: { .internalFailure("background: \($0)") })
        try check(MagickSetImageAlphaChannel(wand, RemoveAlphaChannel), or: { .internalFailure("flatten: \($0)") })
    }

    func strip() throws(ThumbError) {
        try check(MagickStripImage(wand), or: { .internalFailure("strip: \($0)") })
    }

    func encode(as format: ImageFormat, quality: Int) throws(ThumbError) -> [UInt8] {
        try check(MagickSetImageFormat(wand, format.magickName), or: { .unprocessable("cannot write \(format.rawValue): \($0)") })
        if format != .png && format != .gif {
            MagickSetImageCompressionQuality(wand, quality)
        }
        if format == .jpeg {
            MagickSetInterlaceScheme(wand, PlaneInterlace)
            MagickSetImageInterlaceScheme(wand, PlaneInterlace)
            MagickSetSamplingFactors(wand, 3, [2.0, 1.0, 1.0])
        }
        var length = 0
        guard let blob = MagickGetImageBlob(wand, &length) else {
            throw failure { .unprocessable("cannot encode \(format.rawValue): \($0)") }
        }
        defer { MagickRelinquishMemory(blob) }
        return Array(UnsafeBufferPointer(start: blob, count: length))
    }

    private func check(_ result: MagickBooleanType, or error: (String) -> ThumbError) throws(ThumbError) {
        guard result == MagickTrue else { throw failure(error) }
    }

    private func failure(_ error: (String) -> ThumbError) -> ThumbError {
        var severity = UndefinedException
        guard let message = MagickGetException(wand, &severity) else { return error("unknown error") }
        defer { MagickRelinquishMemory(message) }
        MagickClearException(wand)
        return error(String(cString: message))
    }
}
