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

    /// From RGBA, each colour times its alpha: what is under a transparent pixel does not count.
    init(premultiplying rgba: UnsafeBufferPointer<UInt8>, width: Int, height: Int) {
        precondition(rgba.count == width * height * 4, "\(rgba.count) bytes is not \(width)x\(height) RGBA")
        let rgb = [UInt8](unsafeUninitializedCapacity: width * height * 3) { rgb, count in
            for pixel in 0..<(width * height) {
                let alpha = UInt32(rgba[4 * pixel + 3])
                for channel in 0..<3 {
                    rgb[3 * pixel + channel] = UInt8((UInt32(rgba[4 * pixel + channel]) * alpha + 127) / 255)
                }
            }
            count = width * height * 3
        }
        self.init(width: width, height: height, rgb: rgb)
    }
}
