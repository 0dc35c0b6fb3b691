import ThumbFetch
import ThumbImaging
import ThumbRuntime

/// imgproxy's fallback image: what a request gets, rendered with its own options, when its
/// source cannot be fetched or decoded. Never stored, and cached by clients only briefly, so
/// that nginx keeps asking thumbd and the real thumbnail appears once the origin recovers.
public struct FallbackImage: Sendable {
    public let bytes: [UInt8]
    public let format: SourceFormat
    /// The status it is answered with (imgproxy's FALLBACK_IMAGE_HTTP_CODE); nil: the status of
    /// the failure it stands in for.
    public let status: Int?
    /// Seconds clients and CDNs may keep it (imgproxy's FALLBACK_IMAGE_TTL).
    public let maxAge: Int

    public init(bytes: [UInt8], format: SourceFormat, status: Int?, maxAge: Int) {
        self.bytes = bytes
        self.format = format
        self.status = status
        self.maxAge = maxAge
    }

    /// Where it comes from and how it is answered, as configured: the bytes are read at start,
    /// a URL is fetched by `FallbackImageSource`.
    public struct Settings: Sendable {
        public var image: [UInt8]?
        public var url: String?
        public var status: Int? = 200
        public var maxAge = 60

        public init() {}

        /// The fallback image these bytes make, answered as configured.
        func image(_ bytes: [UInt8]) throws(ImagingFailure) -> FallbackImage {
            guard let format = ContentSniffer.format(of: bytes) else {
                throw .unprocessable("the fallback image \(ContentSniffer.refusal(of: bytes))")
            }
            return FallbackImage(bytes: bytes, format: format, status: status, maxAge: maxAge)
        }
    }
}
