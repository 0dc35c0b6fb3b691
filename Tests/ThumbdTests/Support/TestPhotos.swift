import Foundation

/// The project's sample photos, as deploy/test fetches them: THUMBD_TEST_PHOTOS, or the caller's own
/// copy in ~/.cache/thumbd/photos (deploy/common.sh's photo_cache). Never a fixed name under /tmp:
/// the tests run as root, and would decode, and serve through the demo, whatever another user put there.
enum TestPhotos {
    static let directory: String = {
        let environment = ProcessInfo.processInfo.environment
        return environment["THUMBD_TEST_PHOTOS"]
            ?? (environment["XDG_CACHE_HOME"] ?? NSHomeDirectory() + "/.cache") + "/thumbd/photos"
    }()
}
