import CImageQuant
import CMagickWand
import CPNG
#if canImport(Glibc)
import Glibc
#endif
import ThumbRuntime

extension MagickImage {
    /// A palette PNG (colour type 3) of at most `colors` colours, alpha included, quantised by
    /// libimagequant at libvips's speed (4, its effort 7), without libvips's dithering, which
    /// cost bytes and score (bench/palette). ImageMagick's own quantiser lost the transparency or
    /// kept one bit of it.
    func encodePalettePNG(colors: Int) throws(ImagingFailure) -> [UInt8] {
        try checkEncoderBudget("a palette PNG")
        let (width, height) = (self.width, self.height)
        let rgba = try exportedPixels("RGBA", for: "palette PNG")
        var (indices, palette) = try Self.quantise(rgba, width: width, height: height, colors: colors)
        let (ordered, transparent) = Self.transparentFirst(palette)
        for pixel in indices.indices { indices[pixel] = ordered.newIndex[Int(indices[pixel])] }
        return try Self.writePalettePNG(indices, width: width, height: height, palette: ordered.palette,
                                        transparentEntries: transparent, icc: iccProfile)
    }

    private static func quantise(_ rgba: [UInt8], width: Int, height: Int,
                                 colors: Int) throws(ImagingFailure) -> (indices: [UInt8], palette: [liq_color]) {
        OpenMP.keepToCallingThread()
        guard let attributes = liq_attr_create() else { throw .internalFailure("libimagequant: out of memory") }
        defer { liq_attr_destroy(attributes) }
        // Colours stop being added once libimagequant's own quality reaches 98 (libvips asks 100):
        // a flat graphic's antialiased edges then take a few dozen entries, not two hundred, for a
        // third of the truecolour bytes rather than a half; a photo never reaches it.
        guard liq_set_max_colors(attributes, Int32(colors)) == LIQ_OK, liq_set_speed(attributes, 4) == LIQ_OK,
              liq_set_quality(attributes, 0, 98) == LIQ_OK else {
            throw .internalFailure("libimagequant: cannot take \(colors) colours")
        }
        var indices = [UInt8](repeating: 0, count: width * height)
        var palette: [liq_color] = []
        var status = LIQ_OK
        rgba.withUnsafeBytes { pixels in
            // 0: libimagequant's sRGB gamma.
            guard let image = liq_image_create_rgba(attributes, pixels.baseAddress!, Int32(width), Int32(height), 0) else {
                status = LIQ_OUT_OF_MEMORY
                return
            }
            defer { liq_image_destroy(image) }
            var result: OpaquePointer?
            status = liq_image_quantize(image, attributes, &result)
            guard status == LIQ_OK, let result else { return }
            defer { liq_result_destroy(result) }
            // No dithering: its noise cost bytes and SSIMULACRA2 alike, on flat graphics and photos.
            _ = liq_set_dithering_level(result, 0)
            status = indices.withUnsafeMutableBytes { liq_write_remapped_image(result, image, $0.baseAddress!, $0.count) }
            guard status == LIQ_OK, let chosen = liq_get_palette(result)?.pointee else { return }
            palette = withUnsafeBytes(of: chosen.entries) { Array($0.bindMemory(to: liq_color.self).prefix(Int(chosen.count))) }
        }
        guard status == LIQ_OK, !palette.isEmpty else {
            throw .internalFailure("libimagequant cannot quantise the image (liq_error \(status.rawValue))")
        }
        return (indices, palette)
    }

    /// The palette with its entries of any transparency first, so that tRNS lists only those;
    /// with each old index's new place.
    private static func transparentFirst(_ palette: [liq_color]) -> (ordered: (palette: [UInt8], newIndex: [UInt8]), transparent: Int) {
        let order = palette.indices.filter { palette[$0].a < 255 } + palette.indices.filter { palette[$0].a == 255 }
        var newIndex = [UInt8](repeating: 0, count: palette.count)
        for (place, old) in order.enumerated() { newIndex[old] = UInt8(place) }
        let flat = order.flatMap { [palette[$0].r, palette[$0].g, palette[$0].b, palette[$0].a] }
        return ((flat, newIndex), palette.count { $0.a < 255 })
    }

    private static func writePalettePNG(_ indices: [UInt8], width: Int, height: Int, palette: [UInt8],
                                        transparentEntries: Int, icc: [UInt8]?) throws(ImagingFailure) -> [UInt8] {
        var output = thumbd_png_output()
        var message = [CChar](repeating: 0, count: 256)
        let status = indices.withUnsafeBufferPointer { indices in
            palette.withUnsafeBufferPointer { palette in
                Self.withOptionalBytes(icc) { icc in
                    thumbd_png_encode_palette(indices.baseAddress, Int32(width), Int32(height), palette.baseAddress,
                                              Int32(palette.count / 4), Int32(transparentEntries), icc.baseAddress,
                                              icc.count, &output, &message, message.count)
                }
            }
        }
        defer { free(output.bytes) }
        guard status == 0, let bytes = output.bytes else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .internalFailure("cannot write a palette PNG: \(text)")
        }
        return Array(UnsafeBufferPointer(start: bytes, count: output.size))
    }

    private static func withOptionalBytes<T>(_ bytes: [UInt8]?, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        guard let bytes else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        return bytes.withUnsafeBufferPointer(body)
    }
}
