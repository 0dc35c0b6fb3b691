import CJXL
import ThumbRequest
import ThumbRuntime

extension MagickImage {
    /// A JPEG XL of this picture, encoded by libjxl at `quality` mapped to a Butteraugli distance as
    /// libvips maps it for imgproxy (`FORMAT_QUALITY jxl=77` means what it did), at `effort` (1-9).
    /// Lossy (VarDCT in XYB), alpha kept where a pixel is not opaque, the ICC profile the picture carries
    /// or else sRGB; libjxl on this thread alone (no parallel runner is given).
    func encodeJXL(quality: Int, effort: Int) throws(ImagingFailure) -> [UInt8] {
        try checkEncoderBudget("a JPEG XL")
        let channels = usesAlpha ? 4 : 3
        let pixels = try exportedPixels(channels == 4 ? "RGBA" : "RGB", for: "JPEG XL")

        guard let encoder = JxlEncoderCreate(nil) else { throw .internalFailure("libjxl: out of memory") }
        defer { JxlEncoderDestroy(encoder) }
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(width)
        info.ysize = UInt32(height)
        info.bits_per_sample = 8
        info.num_color_channels = 3
        info.uses_original_profile = JXL_FALSE
        if channels == 4 {
            info.num_extra_channels = 1
            info.alpha_bits = 8
        }
        try Self.jxlCheck(JxlEncoderSetBasicInfo(encoder, &info), encoder, "cannot take the picture's size")
        if let icc = iccProfile {
            let status = icc.withUnsafeBufferPointer { JxlEncoderSetICCProfile(encoder, $0.baseAddress, $0.count) }
            try Self.jxlCheck(status, encoder, "cannot take the ICC profile")
        } else {
            var colour = JxlColorEncoding()
            JxlColorEncodingSetToSRGB(&colour, JXL_FALSE)
            try Self.jxlCheck(JxlEncoderSetColorEncoding(encoder, &colour), encoder, "cannot take sRGB")
        }

        guard let settings = JxlEncoderFrameSettingsCreate(encoder, nil) else {
            throw .internalFailure("libjxl: out of memory")
        }
        try Self.jxlCheck(JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(effort)),
                          encoder, "cannot take effort \(effort)")
        try Self.jxlCheck(JxlEncoderSetFrameDistance(settings, Self.jxlDistance(quality: quality)), encoder,
                          "cannot take quality \(quality)")
        var format = JxlPixelFormat(num_channels: UInt32(channels), data_type: JXL_TYPE_UINT8,
                                    endianness: JXL_NATIVE_ENDIAN, align: 0)
        let added = pixels.withUnsafeBytes { JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count) }
        try Self.jxlCheck(added, encoder, "cannot take the pixels")
        JxlEncoderCloseInput(encoder)
        return try Self.jxlOutput(encoder, expected: pixels.count / 8)
    }

    /// libvips's mapping of a 0-100 quality onto a distance for libjxl before 0.9 (lower is finer):
    /// 0.1 + (100 - q) x 0.09 from q30 up (imgproxy's default q77 is 2.17), a parabola below that
    /// meets it at q30 and reaches 25 at q0.
    static func jxlDistance(quality: Int) -> Float {
        let q = Float(min(100, max(0, quality)))
        return q >= 30 ? 0.1 + (100 - q) * 0.09 : 53.0 / 3000.0 * q * q - 23.0 / 20.0 * q + 25.0
    }

    /// Runs the encode, growing the output until libjxl has written the whole file.
    private static func jxlOutput(_ encoder: OpaquePointer, expected: Int) throws(ImagingFailure) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: max(4096, expected))
        var written = 0
        while true {
            let (status, filled) = output.withUnsafeMutableBufferPointer { buffer in
                var next: UnsafeMutablePointer<UInt8>? = buffer.baseAddress! + written
                var available = buffer.count - written
                let status = JxlEncoderProcessOutput(encoder, &next, &available)
                return (status, buffer.count - written - available)
            }
            written += filled
            switch status {
            case JXL_ENC_SUCCESS:
                output.removeSubrange(written...)
                return output
            case JXL_ENC_NEED_MORE_OUTPUT:
                output.append(contentsOf: repeatElement(0, count: output.count))
            default:
                throw jxlFailure("cannot encode", encoder)
            }
        }
    }

    private static func jxlCheck(_ status: JxlEncoderStatus, _ encoder: OpaquePointer, _ what: String) throws(ImagingFailure) {
        guard status == JXL_ENC_SUCCESS else { throw jxlFailure(what, encoder) }
    }

    private static func jxlFailure(_ what: String, _ encoder: OpaquePointer) -> ImagingFailure {
        .internalFailure("libjxl \(what) (error \(JxlEncoderGetError(encoder).rawValue))")
    }
}
