import ThumbCache
import ThumbRequest
import ThumbRuntime

/// A finished thumbnail: its bytes (shared, never copied, by every request that waited for
/// it) and where it was stored, if storing worked.
public struct Thumbnail: Sendable {
    /// Empty for a second spelling linked to an earlier file: stored thumbnails are answered
    /// from their file.
    public let bytes: [UInt8]
    public let format: ImageFormat
    /// nil when it could not be stored; then only this job's requests get it.
    public let stored: CachePath?
    /// Set when this is the fallback image standing in for a source that failed: never stored.
    public let fallback: FallbackImage?
    /// The status the fallback image is answered with: the configured one, else the failure's.
    public let fallbackStatus: Int

    public init(bytes: [UInt8], format: ImageFormat, stored: CachePath?, fallback: FallbackImage? = nil,
                fallbackStatus: Int = 200) {
        self.bytes = bytes
        self.format = format
        self.stored = stored
        self.fallback = fallback
        self.fallbackStatus = fallbackStatus
    }
}

/// What every request of one job receives.
public typealias JobOutcome = Result<Thumbnail, JobFailure>
