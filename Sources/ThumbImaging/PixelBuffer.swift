/// 8-bit RGB pixels, 3 bytes a pixel, row-major from the top-left: what smart crop looks at,
/// kept apart from ImageMagick so the analysis is plain Swift and testable on drawn buffers.
struct PixelBuffer: Sendable {
    let width: Int
    let height: Int
    let rgb: [UInt8]

    init(width: Int, height: Int, rgb: [UInt8]) {
        precondition(width >= 0 && height >= 0 && rgb.count == width * height * 3,
                     "\(rgb.count) bytes is not \(width)x\(height) RGB")
        self.width = width
        self.height = height
        self.rgb = rgb
    }
}
