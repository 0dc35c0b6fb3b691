import CMagickWand
import CWebP
import ThumbRuntime

/// Animated WebP goes through libwebp's animation API both ways. ImageMagick 6 reads the frames
/// without their blend mode (a frame meant to replace its rectangle is drawn over it), and
/// writes each frame with the next one's delay, no loop count, and a play-once animation as a
/// still picture.
extension MagickImage {
    /// Decodes the first `frames` frames of an animated WebP, each the whole canvas as libwebp
    /// composes it, with its delay and the loop count. Returns false, having read nothing, for a
    /// still WebP.
    func readAnimatedWebP(_ bytes: [UInt8], frames: Int) throws(ImagingFailure) -> Bool {
        var features = WebPBitstreamFeatures()
        let status = bytes.withUnsafeBufferPointer { WebPGetFeatures($0.baseAddress, $0.count, &features) }
        guard status == VP8_STATUS_OK else {
            throw .undecodable("cannot decode image: WebP status \(status.rawValue)")
        }
        guard features.has_animation != 0 else { return false }
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else {
            throw .internalFailure("libwebp: wrong demuxer version")
        }
        options.color_mode = MODE_RGBA
        // The decoder keeps pointers into the bytes: they are borrowed for the whole decode.
        let failure: ImagingFailure? = bytes.withUnsafeBufferPointer { buffer in
            var data = WebPData(bytes: buffer.baseAddress, size: buffer.count)
            guard let decoder = WebPAnimDecoderNew(&data, &options) else {
                return .undecodable("cannot decode image: not a complete animated WebP")
            }
            defer { WebPAnimDecoderDelete(decoder) }
            var info = WebPAnimInfo()
            guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else {
                return .undecodable("cannot decode image: WebP animation")
            }
            var previous: Int32 = 0
            for _ in 0..<min(frames, Int(info.frame_count)) {
                var pixels: UnsafeMutablePointer<UInt8>?
                var timestamp: Int32 = 0
                guard WebPAnimDecoderGetNext(decoder, &pixels, &timestamp) != 0, let pixels else {
                    return .undecodable("cannot decode image: a WebP frame is corrupt")
                }
                let constituted = MagickConstituteImage(wand, Int(info.canvas_width), Int(info.canvas_height), "RGBA",
                                                        CharPixel, pixels)
                guard constituted == MagickTrue else { return .undecodable("cannot decode image: WebP frame") }
                MagickSetImageTicksPerSecond(wand, 1000)
                MagickSetImageDelay(wand, Int(timestamp - previous))
                MagickSetImageIterations(wand, Int(info.loop_count))
                // Each frame is the whole canvas: cleared after it is shown, the next replaces it.
                MagickSetImageDispose(wand, BackgroundDispose)
                copyProfiles(from: WebPAnimDecoderGetDemuxer(decoder))
                previous = timestamp
            }
            return nil
        }
        if let failure { throw failure }
        return true
    }

    /// Encodes every frame (each a whole picture of the same size: coalesced) at `quality`,
    /// lossless at 100 as ImageMagick writes WebP, with its delay and the loop count; `effort` is
    /// libwebp's method. The render's deadline is checked between frames.
    ///
    /// libwebp writes a lossy frame as its change from the previous source frame, leaving out
    /// pixels that changed by less than a tolerance that widens as the quality falls. Where a
    /// picture changes a little every frame (a pan, a fade) the changes left out add up, and the
    /// frames drift from their source one after the other. Such an animation is encoded again with
    /// every frame whole: a frame whose error is over twice the first frame's has drifted.
    func encodeAnimatedWebP(quality: Int, effort: Int) throws(ImagingFailure) -> [UInt8] {
        let encoded = try animatedWebP(quality: quality, effort: effort, everyFrameWhole: false)
        guard quality < 100, try framesDrift(in: encoded) else { return encoded }
        return try animatedWebP(quality: quality, effort: effort, everyFrameWhole: true)
    }

    private func animatedWebP(quality: Int, effort: Int, everyFrameWhole: Bool) throws(ImagingFailure) -> [UInt8] {
        var options = WebPAnimEncoderOptions()
        var config = WebPConfig()
        guard WebPAnimEncoderOptionsInit(&options) != 0, WebPConfigInit(&config) != 0 else {
            throw .internalFailure("libwebp: wrong encoder version")
        }
        MagickSetFirstIterator(wand)
        options.anim_params.loop_count = Int32(clamping: MagickGetImageIterations(wand))
        // libwebp's rule: a key frame at most every 1 frame makes every frame one.
        if everyFrameWhole { options.kmax = 1 }
        config.quality = Float(quality)
        config.lossless = quality >= 100 ? 1 : 0
        config.method = Int32(effort)
        // Sharp RGB to YUV, as `encode(as:)` asks of ImageMagick for a still WebP.
        config.use_sharp_yuv = 1
        guard let encoder = WebPAnimEncoderNew(Int32(width), Int32(height), &options) else {
            throw .internalFailure("libwebp: cannot start an animation")
        }
        defer { WebPAnimEncoderDelete(encoder) }
        let failed = { ImagingFailure.internalFailure("libwebp: \(String(cString: WebPAnimEncoderGetError(encoder)))") }
        var timestamp: Int32 = 0
        try forEachFrame { () throws(ImagingFailure) in
            // libwebp's encoder reports no progress to ImageMagick's monitor.
            try checkDeadline()
            let (width, height) = (self.width, self.height)
            var rgba = [UInt8](repeating: 0, count: width * height * 4)
            try check(MagickExportImagePixels(wand, 0, 0, width, height, "RGBA", CharPixel, &rgba),
                      or: { .internalFailure("export: \($0)") })
            var picture = WebPPicture()
            guard WebPPictureInit(&picture) != 0 else { throw .internalFailure("libwebp: wrong encoder version") }
            defer { WebPPictureFree(&picture) }
            (picture.width, picture.height, picture.use_argb) = (Int32(width), Int32(height), 1)
            guard WebPPictureImportRGBA(&picture, rgba, Int32(width * 4)) != 0,
                  WebPAnimEncoderAdd(encoder, &picture, timestamp, &config) != 0 else { throw failed() }
            timestamp += Int32(clamping: delayMilliseconds)
        }
        // The last frame lasts until this end.
        var data = WebPData()
        guard WebPAnimEncoderAdd(encoder, nil, timestamp, nil) != 0, WebPAnimEncoderAssemble(encoder, &data) != 0 else {
            throw failed()
        }
        defer { WebPDataClear(&data) }
        return Array(UnsafeBufferPointer(start: data.bytes, count: data.size))
    }

    /// Whether a frame of `webp`, this animation encoded, is over twice as far from its source
    /// frame as the first frame is from its own, and a level more (the mean difference of red,
    /// green and blue, 0 to 255).
    private func framesDrift(in webp: [UInt8]) throws(ImagingFailure) -> Bool {
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else { throw .internalFailure("libwebp: wrong demuxer version") }
        options.color_mode = MODE_RGBA
        return try webp.withUnsafeBufferPointer { buffer throws(ImagingFailure) in
            var data = WebPData(bytes: buffer.baseAddress, size: buffer.count)
            guard let decoder = WebPAnimDecoderNew(&data, &options) else {
                throw .internalFailure("libwebp cannot decode its own animation")
            }
            defer { WebPAnimDecoderDelete(decoder) }
            var firstError: Double?
            var drifted = false
            try forEachFrame { () throws(ImagingFailure) in
                guard !drifted else { return }
                try checkDeadline()
                var decoded: UnsafeMutablePointer<UInt8>?
                var timestamp: Int32 = 0
                guard WebPAnimDecoderGetNext(decoder, &decoded, &timestamp) != 0, let decoded else {
                    throw .internalFailure("libwebp cannot decode a frame of its own animation")
                }
                let source = try exportedPixels("RGBA", for: "WebP animation")
                var total = 0
                for index in source.indices where index % 4 != 3 {
                    total += abs(Int(source[index]) - Int(decoded[index]))
                }
                let error = Double(total) / Double(source.count / 4 * 3)
                if let firstError { drifted = error > max(2 * firstError, firstError + 1) } else { firstError = error }
            }
            return drifted
        }
    }
}
