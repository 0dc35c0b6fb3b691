/// A finished thumbnail: its bytes (shared, never copied, by every request that waited for
/// it) and where it was stored, if storing worked.
public struct Thumbnail: Sendable {
    public let bytes: [UInt8]
    public let format: ImageFormat
    /// nil when it could not be stored; then only this job's requests get it.
    public let stored: CachePath?
}

/// What every request of one job receives.
public typealias JobOutcome = Result<Thumbnail, ThumbError>
