import Foundation
import Logging
import Synchronization
import ThumbFetch
import ThumbImaging
import ThumbRuntime

/// The fallback image as it stands now. Bytes given at start are there at once. A
/// FALLBACK_IMAGE_URL is fetched once at start, and, while its origin fails, again on a thread of
/// its own, the pause doubling from 1 s to `maxPause`, until it answers: an origin down at start
/// neither keeps thumbd from serving nor leaves it without a fallback once it is back. Until
/// then a source that fails gets its own error, as with no fallback set.
public final class FallbackImageSource: Sendable {
    public let settings: FallbackImage.Settings
    private let loaded: Mutex<FallbackImage?>
    private let maxPause: Double

    /// Throws when the bytes given are not an image (which the settings check when they read them).
    public init(_ settings: FallbackImage.Settings, maxPause: Double = 60) throws(ImagingFailure) {
        self.settings = settings
        self.maxPause = maxPause
        loaded = Mutex(try settings.image.map { bytes throws(ImagingFailure) in try settings.image(bytes) })
    }

    /// The image a failed source gets now; nil: none (yet).
    public var current: FallbackImage? { loaded.withLock { $0 } }

    /// Fetches the URL, if one is set, through the origin guard like any source: once now, on the
    /// caller's thread, then on `thumbd-fallback` until it answers with an image.
    public func load(with fetcher: OriginFetcher, logger: Logger) {
        guard let url = settings.url, !attempt(url, fetcher: fetcher, logger: logger, pause: 1) else { return }
        OwnedThread.start(.fallback) { [self] in
            var pause = 1.0
            repeat {
                Thread.sleep(forTimeInterval: pause)
                pause = min(pause * 2, maxPause)
            } while !attempt(url, fetcher: fetcher, logger: logger, pause: pause)
        }
    }

    /// True when the image is in place; `pause`: seconds until the next try, for the log.
    private func attempt(_ url: String, fetcher: OriginFetcher, logger: Logger, pause: Double) -> Bool {
        do throws(JobFailure) {
            let body: [UInt8]
            do throws(FetchFailure) {
                body = try fetcher.fetch(url).body
            } catch {
                throw .fetch(error)
            }
            let image: FallbackImage
            do throws(ImagingFailure) {
                image = try settings.image(body)
            } catch {
                throw .imaging(error)
            }
            loaded.withLock { $0 = image }
            logger.info("fallback image loaded", metadata: ["bytes": "\(image.bytes.count)"])
            return true
        } catch {
            logger.warning("""
                cannot load the fallback image (FALLBACK_IMAGE_URL); failed sources get their own errors until it \
                loads
                """, metadata: ["error": "\(error)", "next_try_s": "\(Int(pause))"])
            return false
        }
    }
}
