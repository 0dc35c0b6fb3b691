import CWebP
import ThumbRuntime

/// A WebP's size and frame count, read from its chunks by libwebp's demuxer without decoding:
/// ImageMagick's ping decodes every pixel of a WebP (0.7 s for a 4096x4096 lossless one).
struct WebPHeader {
    let width: Int
    let height: Int
    let frames: Int

    init(_ bytes: [UInt8]) throws(ImagingFailure) {
        let read: (width: Int, height: Int, frames: Int)? = bytes.withUnsafeBufferPointer { buffer in
            var data = WebPData(bytes: buffer.baseAddress, size: buffer.count)
            guard let demux = WebPDemux(&data) else { return nil }
            defer { WebPDemuxDelete(demux) }
            return (Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH)), Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT)),
                    Int(WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT)))
        }
        guard let read else { throw .undecodable("cannot read image header: not a complete WebP file") }
        (width, height, frames) = read
    }
}
