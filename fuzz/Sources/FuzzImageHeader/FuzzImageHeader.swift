import CPNG
@testable import ThumbImaging
#if canImport(Glibc)
import Glibc
#endif

/// The first bytes of a source through what reads them before ImageMagick: the content sniffer
/// (and its refusal, which names JPEG XL), the WebP header, the progressive JPEG's DC decoder
/// (whose image must hold exactly its pixels), and the shrinking PNG decoder.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzImageHeader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let format = ContentSniffer.format(of: bytes)
    if format == nil {
        _ = ContentSniffer.refusal(of: bytes)
    }
    if format == .webp {
        _ = try? WebPHeader(bytes)
    }
    if let eighth = ProgressiveJPEG.eighth(bytes) {
        guard eighth.width > 0, eighth.height > 0, [1, 3].contains(eighth.channels),
              eighth.pixels.count == eighth.width * eighth.height * eighth.channels else {
            fatalError("a \(eighth.width)x\(eighth.height) eighth of \(eighth.channels) channels holds \(eighth.pixels.count) bytes")
        }
    }
    if format == .png {
        var image = thumbd_png_image()
        var error = [CChar](repeating: 0, count: 256)
        if bytes.withUnsafeBufferPointer({ thumbd_png_decode_shrunk($0.baseAddress, $0.count, 3, &image, &error, error.count) }) == 0 {
            // Every pixel is written: reading them all is what AddressSanitizer checks.
            var sum = 0
            for index in 0..<Int(image.width * image.height * image.channels) { sum &+= Int(image.pixels[index]) }
            free(image.pixels)
            _ = sum
        }
    }
    return 0
}
