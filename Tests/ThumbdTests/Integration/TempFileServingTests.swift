import Foundation
import Testing
import ThumbdTestSupport

/// thumbd writes a thumbnail to a temp file beside its final name before renaming it into place;
/// nginx serves that directory, and must never serve such a file to a client who names it.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct TempFileServingTests {
    @Test func tempFilesInTheCacheAreNeverServed() throws {
        // Given temp files, readable as thumbd makes them, in a fan-out directory and at the top of
        // the served tree (named for this live process, so no start-up scan removes them)
        let stack = try TestStack(environment: TestStack.signing)
        defer { stack.shutdown() }
        let unfinished = Array("half a thumbnail".utf8)
        let name = ".thumbd-tmp-\(getpid())-Ab12Cd"
        for directory in ["/served/a", "/served"] {
            let file = stack.cacheRoot + directory + "/" + name
            try FileManager.default.createDirectory(atPath: stack.cacheRoot + directory, withIntermediateDirectories: true)
            try Data(unfinished).write(to: URL(fileURLWithPath: file))
            chmod(file, 0o644)
        }

        // When a client asks for them by every path that could lead there, as named and with the
        // dot percent-encoded
        let paths = ["/a/\(name)", "/\(name)", "/served/a/\(name)", "/a/\(name)@webp", "/\(name)/x@jpg", "/aa/../a/\(name)",
                     "/a\(name)/x@webp"]
        for path in paths {
            for spelling in [path, path.replacingOccurrences(of: "/.thumbd", with: "/%2Ethumbd")] {
                let response = try stack.get(spelling)

                // Then nginx never answers with the file's bytes
                #expect(response.status != 200, "\(spelling)")
                #expect(!response.body.starts(with: unfinished), "\(spelling)")
            }
        }
    }

    @Test func aSourceNamedAsATempFileIsAThumbnailLikeAnyOther() throws {
        // Given an origin with an image at a path whose last segment begins as temp files do
        let origin = try TestOrigin()
        defer { origin.stop() }
        let name = "/.thumbd-tmp-\(getpid())-Ab12Cd"
        origin.serve(name, .image(TestImages.jpeg(width: 64, height: 48)))
        let stack = try TestStack(environment: TestStack.signing)
        defer { stack.shutdown() }

        // When a client asks for a thumbnail of it
        let path = "/insecure/w:32/plain/\(origin.url(name))@jpg"
        let response = try stack.get(path)

        // Then it is made and stored by its signature, as every thumbnail is: its file's name is
        // never the source's
        #expect(response.status == 200)
        #expect(try ImageProbe(response.body).width == 32)
        #expect(stack.cacheFiles() == [stack.servedFile(path, format: "jpg")])
    }
}
