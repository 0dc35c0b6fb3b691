import CMagickWand
import CPNG
#if canImport(Glibc)
import Glibc
#endif

extension MagickImage {
    /// Shrink-on-load for PNG, which has no reduced decode of its own: libpng's rows are averaged
    /// in squares as they come, down to no less than twice the size asked for, so the render's
    /// own resize still does the filtering. ImageMagick's reader first holds every pixel at 16
    /// bits per channel, which costs a large PNG's thumbnail most of its CPU.
    /// Returns false, with nothing read, when the shrink is too small to pay, for an interlaced
    /// PNG, or when libpng fails or warns: the caller reads the file whole, and ImageMagick judges it.
    func readPNG(_ bytes: [UInt8], header: MagickImage, scaledFor size: (width: Int, height: Int)) -> Bool {
        // A square of 128 x 128 still sums in 32 bits.
        let factor = min(128, header.width / (2 * max(1, size.width)), header.height / (2 * max(1, size.height)))
        guard factor >= 2 else { return false }
        var image = thumbd_png_image()
        var error = [CChar](repeating: 0, count: 256)
        let status = bytes.withUnsafeBufferPointer { thumbd_png_decode_shrunk($0.baseAddress, $0.count, Int32(factor), &image, &error, error.count) }
        guard status == 0 else { return false }
        defer { free(image.pixels) }
        return take(pixels: image.pixels, width: Int(image.width), height: Int(image.height),
                    map: image.channels == 4 ? "RGBA" : "RGB", metadataOf: header)
    }
}
