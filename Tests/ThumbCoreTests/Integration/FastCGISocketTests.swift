import Foundation
import Testing

/// thumbd's socket is open to every local user (mode 0666), so what arrives on it is not always
/// what nginx normalised: thumbd must hold its own line on the paths it writes.
@Suite(.serialized)
struct FastCGISocketTests {
    /// A request straight to thumbd's socket with libfcgi's cgi-fcgi, its parameters as given.
    static func fastCGI(_ stack: TestStack, requestURI: String, documentURI: String) throws -> String {
        let finished = try ProcessRunner.run("/usr/bin/env", [
            "-i", "REQUEST_METHOD=GET", "REQUEST_URI=\(requestURI)", "DOCUMENT_URI=\(documentURI)",
            "/usr/bin/cgi-fcgi", "-bind", "-connect", stack.sockets[0],
        ])
        return finished.output
    }

    @Test func dotSegmentsNeverLeadAThumbnailOutOfTheCacheRoot() throws {
        // Given an origin, and a path whose dot segments climb from the source's directory to
        // beside the cache root, sent with a DOCUMENT_URI as raw as its REQUEST_URI
        let origin = try TestOrigin()
        for path in ["/escaped/photo.jpg", "/../../../../../../escaped/photo.jpg"] {
            origin.serve(path, .image(TestImages.jpeg(width: 64, height: 48)))
        }
        let stack = try TestStack()
        let climbing = "/insecure/w:32/plain/http://127.0.0.1:\(origin.port)/../../../../../../escaped/photo.jpg@png"

        // When it is asked for as written and with its dots percent-encoded
        for requestURI in [climbing, climbing.replacingOccurrences(of: "..", with: "%2e%2e")] {
            let answer = try Self.fastCGI(stack, requestURI: requestURI, documentURI: climbing)

            // Then thumbd refuses it, and writes nothing outside the cache root
            #expect(answer.hasPrefix("Status: 400"), "\(requestURI): \(answer)")
        }
        #expect(!FileManager.default.fileExists(atPath: stack.directory + "/escaped"))
        #expect(origin.totalRequests == 0)
    }
}
