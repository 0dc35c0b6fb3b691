import ThumbRequest
import ThumbRuntime

/// `skip_processing` and `raw`: the source's own bytes are the answer. Nothing decodes them, but
/// they pass the checks a render makes before decoding (a format the operator enabled, the pixel
/// limits on the header), as imgproxy checks a skipped image's size: no image bomb is answered
/// from the site's origin.
extension Renderer {
    public func passThrough(_ source: [UInt8], sourceFormat: SourceFormat,
                            options: ProcessingOptions) throws(ImagingFailure) -> Rendered {
        guard let format = sourceFormat.asOutput else {
            // nginx serves only the formats thumbd writes, by their extension.
            throw .unprocessable("\(sourceFormat.rawValue.uppercased()) sources cannot be passed through unprocessed")
        }
        try checkEnabled(sourceFormat)
        // The answer is every frame, whatever MAX_ANIMATION_FRAMES: the pixel limit is for all of them together.
        let header = try Self.header(of: source, format: sourceFormat, maxPixels: maxPixels(for: options),
                                     maxFrames: .max)
        return Rendered(bytes: source, format: format, width: header.width, height: header.height)
    }
}
