import Crypto
import Foundation

/// The canonical identity of a thumbnail: the source and the options after normalisation, so
/// two URLs that spell the same thumbnail differently (plain or base64 source, long or short
/// option names, options in another order) have one key and share one job.
public struct ThumbnailKey: Sendable, Hashable, CustomStringConvertible {
    public let canonical: String

    public init(source: String, options: ProcessingOptions) {
        let format = options.format?.rawValue ?? "source"
        let quality = options.format.map { options.effectiveQuality(for: $0) } ?? options.quality
        let gravity = options.gravity
        canonical = [
            source,
            "rt:\(options.resizingType.rawValue)",
            "s:\(options.width):\(options.height):\(options.enlarge ? 1 : 0)",
            // + 0 turns -0 into 0: `g:ce:-0` is the same thumbnail as `g:ce`.
            "g:\(gravity.anchor.rawValue):\(gravity.offsetX + 0):\(gravity.offsetY + 0)",
            "q:\(quality)",
            "f:\(format)",
        ].joined(separator: "|")
    }

    /// A short stable name for logs and hashed file names.
    public var digest: String {
        SHA256.hash(data: Array(canonical.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    public var description: String { digest }
}
