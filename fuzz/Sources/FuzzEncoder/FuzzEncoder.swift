import CMagickWand
@testable import ThumbImaging

/// Small pictures of any size and pixels, with alpha or without, through the encoders thumbd
/// drives itself rather than through ImageMagick (libavif, libjxl, libimagequant), and libavif's
/// decoder that autoquality scores AVIF with: each takes any pixels, fails none, and an AVIF
/// decodes at its own size. Input: width, height, a byte of switches, the quality, then pixels,
/// repeated to fill the picture.
private let started: Void = { MagickEnvironment.start(limits: MagickEnvironment.Limits()) }()

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzEncoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 4 else { return 0 }
    _ = started
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let (width, height) = (Int(bytes[0] % 48) + 1, Int(bytes[1] % 48) + 1)
    let switches = bytes[2], quality = Int(bytes[3] % 101)
    let map = switches & 1 == 1 ? "RGBA" : "RGB"
    let body = bytes[4...]
    let pixels = (0..<width * height * map.count).map { body[body.startIndex + $0 % body.count] }
    let image = MagickImage()
    let made = pixels.withUnsafeBytes {
        MagickConstituteImage(image.wand, width, height, map, CharPixel, $0.baseAddress)
    }
    guard made == MagickTrue else { fatalError("ImageMagick cannot make a \(width)x\(height) \(map) picture") }
    do {
        let avif = try image.encodeAVIF(quality: quality, fullChroma: switches & 2 == 0, speed: 9)
        let decoded = try MagickImage.decodedAVIF(avif)
        guard decoded.width == width, decoded.height == height, decoded.rgba.count == width * height * 4 else {
            fatalError("a \(width)x\(height) AVIF decoded as \(decoded.width)x\(decoded.height)")
        }
        _ = try image.encodeJXL(quality: quality, effort: 1 + Int(switches >> 6))
        _ = try image.encodePalettePNG(colors: 2 + Int(switches >> 2 & 0x0f) * 16)
    } catch {
        fatalError("a \(width)x\(height) \(map) picture at q\(quality): \(error)")
    }
    return 0
}
