import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// thumbd owns every file and directory below the cache root, so a thumbd turned against the host
/// (a decoder bug) could put links there. nginx, which may read more than thumbd (its group's
/// files), must not follow them: the site refuses links below the cache root.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct PlantedLinkTests {
    /// Where the link is put: in place of a thumbnail, of its fan-out directory, or of served/.
    enum Planted: String, CaseIterable {
        case thumbnail, fanOutDirectory, servedDirectory
    }

    /// A URL that names its format (a location that aliases the file), and one that does not
    /// (try_files under the site's root).
    static let urls = ["/insecure/rs:fill:40:30/plain/http://127.0.0.1:1/photo.jpg@jpg",
                       "/insecure/rs:fill:40:30/plain/http://127.0.0.1:1/photo.jpg"]

    @Test(arguments: Planted.allCases, urls)
    func nginxDoesNotFollowALinkBelowTheCacheRoot(_ planted: Planted, url: String) throws {
        // Given a file nginx's workers may read, outside the cache
        let stack = try TestStack(environment: TestStack.signing)
        stack.stopThumbd()
        let secret = Array("not a thumbnail: a file of the web server's\n".utf8)
        let outside = stack.directory + "/outside"
        // and a link to it where nginx looks for the URL's thumbnail
        let served = stack.servedFile(url, format: "jpg")  // served/{c}/{signature}.jpg
        let parts = served.split(separator: "/").map(String.init)
        let (link, target, file) = switch planted {
        case .thumbnail: (served, outside + "/secret.jpg", outside + "/secret.jpg")
        case .fanOutDirectory: ("served/" + parts[1], outside, outside + "/" + parts[2])
        case .servedDirectory: ("served", outside, outside + "/" + parts[1] + "/" + parts[2])
        }
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: file, contents: Data(secret)))
        let linkPath = stack.cacheRoot + "/" + link
        try FileManager.default.createDirectory(atPath: (linkPath as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        if FileManager.default.fileExists(atPath: linkPath) { try FileManager.default.removeItem(atPath: linkPath) }
        try FileManager.default.createSymbolicLink(atPath: linkPath, withDestinationPath: target)

        // When a client asks for that URL
        let response = try stack.get(url)

        // Then nginx does not serve the file the link leads to
        #expect(response.status != 200, "\(planted) for \(url): \(response.status)")
        #expect(response.body != secret, "\(planted) for \(url)")
    }
}
