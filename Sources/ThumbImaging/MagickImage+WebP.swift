import CMagickWand
import CWebP
import ThumbRuntime

extension MagickImage {
    /// Shrink-on-load for WebP: libwebp scales while it decodes, row by row, where ImageMagick's
    /// reader first decodes every pixel at 16 bits per channel, for seconds of CPU and hundreds of
    /// megabytes on a large WebP. Decodes at twice the size asked for
    /// (never above the source), so the render's own resize still does the filtering and the
    /// thumbnail stays as sharp; keeps the ICC and EXIF profiles as ImageMagick's reader does.
    /// With a `window` (source pixels), decodes only that part, scaled for `size`: libwebp stops
    /// parsing below it and neither filters nor scales what lies outside. Returns false, having
    /// read nothing, for an animation
    /// (`readAnimatedWebP` decodes those).
    func readWebP(_ bytes: [UInt8], window: PixelRect?, scaledFor size: (width: Int, height: Int)) throws(ImagingFailure) -> Bool {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw .internalFailure("libwebp: wrong decoder version") }
        let undecodable = { (status: VP8StatusCode) in ImagingFailure.undecodable("cannot decode image: WebP status \(status.rawValue)") }
        let features = bytes.withUnsafeBufferPointer { WebPGetFeatures($0.baseAddress, $0.count, &config.input) }
        guard features == VP8_STATUS_OK else { throw undecodable(features) }
        guard config.input.has_animation == 0 else { return false }

        var source = (width: Int(config.input.width), height: Int(config.input.height))
        if let window {
            config.options.use_cropping = 1
            config.options.crop_left = Int32(window.x)
            config.options.crop_top = Int32(window.y)
            config.options.crop_width = Int32(window.width)
            config.options.crop_height = Int32(window.height)
            source = (window.width, window.height)
        }
        let scale = min(1, 2 * max(Double(size.width) / Double(source.width), Double(size.height) / Double(source.height)))
        let width = max(1, Int((Double(source.width) * scale).rounded()))
        let height = max(1, Int((Double(source.height) * scale).rounded()))
        if scale < 1 {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(width)
            config.options.scaled_height = Int32(height)
        }
        // A large picture's filtering and scaling run on a second thread while the first parses:
        // the same pixels and CPU, sooner.
        let parsed = Int(config.input.width) * (window.map { $0.y + $0.height } ?? Int(config.input.height))
        config.options.use_threads = parsed >= 4_000_000 ? 1 : 0
        let alpha = config.input.has_alpha != 0
        config.output.colorspace = alpha ? MODE_RGBA : MODE_RGB
        let decoded = bytes.withUnsafeBufferPointer { WebPDecode($0.baseAddress, $0.count, &config) }
        defer { WebPFreeDecBuffer(&config.output) }
        guard decoded == VP8_STATUS_OK else { throw undecodable(decoded) }
        // libwebp's own buffer is packed: stride is width times the bytes per pixel.
        let constituted = MagickConstituteImage(wand, width, height, alpha ? "RGBA" : "RGB", CharPixel,
                                                config.output.u.RGBA.rgba)
        try check(constituted, or: { .undecodable("cannot decode image: \($0)") })
        copyProfiles(of: bytes)
        return true
    }

    private func copyProfiles(of bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer in
            var data = WebPData(bytes: buffer.baseAddress, size: buffer.count)
            guard let demux = WebPDemux(&data) else { return }
            defer { WebPDemuxDelete(demux) }
            copyProfiles(from: demux)
        }
    }

    /// Gives the current frame the file's ICC and EXIF profiles.
    func copyProfiles(from demux: OpaquePointer) {
        for (chunk, profile) in [("ICCP", "icc"), ("EXIF", "exif")] {
            var iterator = WebPChunkIterator()
            guard WebPDemuxGetChunk(demux, chunk, 1, &iterator) != 0 else { continue }
            MagickSetImageProfile(wand, profile, iterator.chunk.bytes, iterator.chunk.size)
            WebPDemuxReleaseChunkIterator(&iterator)
        }
    }
}
