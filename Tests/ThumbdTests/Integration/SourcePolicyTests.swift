import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbRequest

/// Refusals prove themselves on this machine only: loopback sources while loopback is not
/// allowed, answered 403 before the origin sees a connection.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct SourcePolicyTests {
    let origin: TestOrigin

    init() throws {
        origin = try TestOrigin()
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 64, height: 48)))
    }

    @Test func everySpellingOfThisMachineIsRefusedWithoutAConnection() throws {
        let guarded = try TestStack(environment: ["THUMBD_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "false"])
        let hosts = ["127.0.0.1", "localhost", "[::1]", "127.1", "2130706433", "0x7f000001",
                     "[::ffff:127.0.0.1]", "0.0.0.0", "127.0.0.2"]
        for host in hosts {
            let response = try guarded.get("/insecure/w:32/plain/http://\(host):\(origin.port)/photo.jpg@png")
            #expect(response.status == 403, "\(host): \(response.text)")
            #expect(response.text == "forbidden: source is not allowed\n", "\(host): the address is for the log only")
        }
        // refused before a connection: the origin never saw one
        #expect(origin.connectionCount == 0)
        #expect(guarded.cacheFiles().isEmpty)
        // The log says which address was refused
        #expect(guarded.thumbdLog.contains("connects to 127.0.0.2, which is not allowed"))
    }

    @Test func oneAllowedAddressDoesNotOpenItsNeighboursEvenThroughRedirects() throws {
        // Given loopback refused, but exactly 127.0.0.1 allowed
        let stack = try TestStack(environment: [
            "THUMBD_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "false", "THUMBD_ALLOWED_SOURCE_ADDRESSES": "127.0.0.1",
        ])
        origin.serve("/to-neighbour", .redirect("http://127.0.0.2:\(origin.port)/photo.jpg"))
        origin.serve("/to-v6", .redirect("http://[::1]:\(origin.port)/photo.jpg"))
        origin.serve("/to-name", .redirect("http://localhost:\(origin.port)/photo.jpg"))

        // Then the allowed origin works
        #expect(try stack.get("/insecure/w:32/plain/\(origin.url("/photo.jpg"))@png").status == 200)
        // and each redirect out of it is refused at the hop
        for path in ["/to-neighbour", "/to-v6"] {
            let response = try stack.get("/insecure/w:32/plain/\(origin.url(path))@png")
            #expect(response.status == 403, "\(path): \(response.text)")
            #expect(origin.requestCount(path) == 1)
        }
        // localhost may resolve to 127.0.0.1 (allowed) or ::1 (refused): either way never elsewhere
        let named = try stack.get("/insecure/w:32/plain/\(origin.url("/to-name"))@png")
        #expect(named.status == 200 || named.status == 403)
        #expect(origin.requestCount("/photo.jpg") == (named.status == 200 ? 2 : 1))
    }

    @Test func sourcesOutsideTheAllowedPrefixesAreRefused() throws {
        let stack = try TestStack(environment: ["THUMBD_ALLOWED_SOURCES": origin.url("/allowed/")])
        origin.serve("/allowed/photo.jpg", .image(TestImages.jpeg(width: 64, height: 48)))

        #expect(try stack.get("/insecure/w:32/plain/\(origin.url("/allowed/photo.jpg"))@png").status == 200)
        let refused = try stack.get("/insecure/w:32/plain/\(origin.url("/photo.jpg"))@png")
        #expect(refused.status == 403)
        #expect(refused.text == "forbidden: source is not allowed\n")
        #expect(origin.requestCount("/photo.jpg") == 0)
    }

    @Test func aRedirectOutOfTheAllowedSourcesIsRefusedBeforeItIsFollowed() throws {
        // Given one allowed prefix, with a source in it that redirects out of it
        let stack = try TestStack(environment: ["THUMBD_ALLOWED_SOURCES": origin.url("/allowed/")])
        origin.serve("/allowed/moved.jpg", .redirect(origin.url("/elsewhere/photo.jpg")))
        origin.serve("/allowed/moved-inside.jpg", .redirect(origin.url("/allowed/photo.jpg")))
        origin.serve("/allowed/photo.jpg", .image(TestImages.jpeg(width: 64, height: 48)))
        origin.serve("/elsewhere/photo.jpg", .image(TestImages.jpeg(width: 64, height: 48)))

        // When the redirecting source is asked for
        let refused = try stack.get("/insecure/w:32/plain/\(origin.url("/allowed/moved.jpg"))@png")

        // Then the hop is refused before anything asks for it, and only the log names it
        #expect(refused.status == 403, "\(refused.text)")
        #expect(refused.text == "forbidden: source is not allowed\n")
        #expect(origin.requestCount("/allowed/moved.jpg") == 1)
        #expect(origin.requestCount("/elsewhere/photo.jpg") == 0)
        #expect(stack.thumbdLog.contains("redirects to \(origin.url("/elsewhere/photo.jpg")), which is not in the allowed sources"))
        // and a redirect that stays inside the allowed prefixes is followed
        #expect(try stack.get("/insecure/w:32/plain/\(origin.url("/allowed/moved-inside.jpg"))@png").status == 200)
        #expect(stack.cacheFiles().count == 1)
    }

    @Test func aRelativeSourceCannotMoveTheBaseURLsHost() throws {
        // Given a base URL without a trailing slash, and a second origin on another port
        let other = try TestOrigin()
        other.serve("/photo.jpg", .image(TestImages.jpeg(width: 64, height: 48)))
        let stack = try TestStack(environment: ["THUMBD_BASE_URL": "http://127.0.0.1:\(origin.port)"])

        // When a source turns the base's host into a user name: http://127.0.0.1:P1@127.0.0.1:P2/photo.jpg
        let response = try stack.get("/insecure/w:32/plain/@127.0.0.1:\(other.port)/photo.jpg@png")

        // Then the base's host is asked for that path, and the other origin never hears of it
        #expect(response.status == 404, "\(response.text)")
        #expect(origin.requestCount("/@127.0.0.1:\(other.port)/photo.jpg") == 1)
        #expect(other.connectionCount == 0)
        // while an ordinary relative source works
        #expect(try stack.get("/insecure/w:32/plain/photo.jpg@png").status == 200)
    }

    @Test func anAbsoluteSourceElsewhereIsAskedOfTheBaseURL() throws {
        // Given a base URL with a path, and a second origin on another port with a photo
        let other = try TestOrigin()
        other.serve("/photo.jpg", .image(TestImages.jpeg(width: 64, height: 48)))
        let stack = try TestStack(environment: ["THUMBD_BASE_URL": origin.url("/base/")])
        origin.serve("/base/photo.jpg", .image(TestImages.jpeg(width: 64, height: 48)))

        // When a source names the other origin in full
        let response = try stack.get("/insecure/w:32/plain/\(other.url("/photo.jpg"))@png")

        // Then the base is asked for it as a path under it (imgproxy's BASE_URL), and the other
        // origin never hears of it
        #expect(response.status == 404, "\(response.text)")
        #expect(origin.requestCount("/base/\(other.url("/photo.jpg"))") == 1)
        #expect(other.connectionCount == 0)
        // while a source that starts with the base, and a relative one, are fetched as they are
        #expect(try stack.get("/insecure/w:33/plain/\(origin.url("/base/photo.jpg"))@png").status == 200)
        #expect(try stack.get("/insecure/w:34/plain/photo.jpg@png").status == 200)
        #expect(origin.requestCount("/base/photo.jpg") >= 1)
    }

    @Test func localSourcesStayInsideTheirRoot() throws {
        // Given a root with a photo, a symlink out of it, and a secret beside it
        let base = try TestDirectory()
        let root = base.path + "/root"
        try FileManager.default.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
        try Data(TestImages.jpeg(width: 64, height: 48)).write(to: URL(fileURLWithPath: root + "/sub/photo.jpg"))
        try Data(TestImages.jpeg(width: 64, height: 48)).write(to: URL(fileURLWithPath: base.path + "/secret.jpg"))
        try FileManager.default.createSymbolicLink(atPath: root + "/out.jpg", withDestinationPath: base.path + "/secret.jpg")
        let stack = try TestStack(environment: ["THUMBD_LOCAL_FILESYSTEM_ROOT": root])

        #expect(try stack.get("/insecure/w:32/plain/local:///sub/photo.jpg@png").status == 200)
        #expect(try stack.get("/insecure/w:32/plain/local:///sub/none.jpg@png").status == 404)
        #expect(try stack.get("/insecure/w:32/plain/local:///out.jpg@png").status == 403)
        // nginx itself resolves a plain "/../"; thumbd refuses what nginx normalised
        #expect(try stack.get("/insecure/w:32/plain/local:///sub/../../secret.jpg@png").status == 400)
        // "%252e%252e" reaches thumbd as %2e%2e, which its decoded path (where nginx would store
        // it) reads as "..": refused as a path that asks for something else once decoded
        #expect(try stack.get("/insecure/w:32/plain/local:///sub/%252e%252e/%252e%252e/secret.jpg@png").status == 400)
        let encoded = Base64URL.encode(Array("local:///../secret.jpg".utf8))
        #expect(try stack.get("/insecure/w:32/\(encoded).png").status == 403)
        #expect(stack.cacheFiles().count == 1)
    }

    @Test func localSourcesAreOffUnlessARootIsSet() throws {
        let stack = try TestStack()
        let response = try stack.get("/insecure/w:32/plain/local:///etc/hostname@png")
        #expect(response.status == 403)
        #expect(response.text == "forbidden: local sources are not enabled\n")
    }
}
