@testable import ThumbCore

/// The first bytes of a source through what reads them in Swift before ImageMagick: the content
/// sniffer, the WebP header, and the progressive JPEG filter, whose output must be a JPEG with
/// nothing left to drop.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzImageHeader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let format = ContentSniffer.format(of: bytes)
    if format == .webp {
        _ = try? WebPHeader(bytes)
    }
    if let filtered = ProgressiveJPEG.withoutFullResolutionACScans(bytes) {
        guard filtered.count < bytes.count, ContentSniffer.format(of: filtered) == .jpeg,
              ProgressiveJPEG.withoutFullResolutionACScans(filtered) == nil else {
            fatalError("the filtered JPEG (\(filtered.count) of \(bytes.count) bytes) is not a JPEG without AC scans")
        }
    }
    return 0
}
