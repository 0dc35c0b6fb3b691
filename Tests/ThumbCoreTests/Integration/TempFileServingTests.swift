import Foundation
import Testing

/// thumbd writes a thumbnail to a temp file beside its final name before renaming it into place;
/// nginx serves that directory, and must never serve such a file to a client who names it.
@Suite(.serialized)
struct TempFileServingTests {
    @Test func tempFilesInTheCacheAreNeverServed() throws {
        // Given temp files, readable as thumbd makes them, where a thumbnail URL's file and the
        // cache root's top would be (named for this live process, so no start-up scan removes them)
        let stack = try TestStack()
        let unfinished = Array("half a thumbnail".utf8)
        let name = ".thumbd-tmp-\(getpid())-Ab12Cd"
        let paths = ["/insecure/w:32/plain/http://127.0.0.1:9/\(name)", "/\(name)"]
        for path in paths {
            let file = stack.cacheRoot + path
            try FileManager.default.createDirectory(
                atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(unfinished).write(to: URL(fileURLWithPath: file))
            chmod(file, 0o644)
        }

        // When a client asks for each, as named and with its dot percent-encoded
        for path in paths {
            for spelling in [path, path.replacingOccurrences(of: "/.thumbd", with: "/%2Ethumbd")] {
                let response = try stack.get(spelling)

                // Then nginx answers 404, never the file's bytes
                #expect(response.status == 404, "\(spelling)")
                #expect(!response.body.starts(with: unfinished), "\(spelling)")
            }
        }
    }

    @Test func aURLWhoseFileWouldBeNamedAsATempFileIsRefused() throws {
        // Given an origin with an image at a path whose last segment begins as temp files do
        let origin = try TestOrigin()
        defer { origin.stop() }
        let name = "/.thumbd-tmp-\(getpid())-Ab12Cd"
        origin.serve(name, .image(TestImages.jpeg(width: 64, height: 48)))
        let stack = try TestStack()
        defer { stack.shutdown() }

        // When a client asks for a thumbnail of it in a named format, which nginx's format
        // locations hand to thumbd, as named and with its dot percent-encoded
        let path = "/insecure/w:32/plain/\(origin.url(name))@jpg"
        for spelling in [path, path.replacingOccurrences(of: "/.thumbd", with: "/%2Ethumbd")] {
            let response = try stack.get(spelling)

            // Then thumbd refuses it before fetching it, and stores nothing named as a temp file
            #expect(response.status == 400, "\(spelling)")
            #expect(response.text.contains("temp files"), "\(spelling): \(response.text)")
        }
        #expect(origin.requestCount(name) == 0)
        #expect(!stack.cacheFiles().contains { $0.contains(".thumbd-tmp-") })
    }
}
