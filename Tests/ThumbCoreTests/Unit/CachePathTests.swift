import Foundation
import Testing
@testable import ThumbCore

/// Where a thumbnail is stored so that nginx's `try_files $uri $uri.jpg $uri.png ...` finds it.
struct CachePathTests {
    @Test(arguments: [
        // the URI's extension already names the format: stored at the URI itself
        ("/x/a.jpg", ImageFormat.jpeg, "/x/a.jpg"),
        ("/x/a.jpeg", .jpeg, "/x/a.jpeg"),
        ("/x/a.JPG", .jpeg, "/x/a.JPG"),
        ("/x/a.webp", .webp, "/x/a.webp"),
        ("/x/a.png", .png, "/x/a.png"),
        ("/x/a.gif", .gif, "/x/a.gif"),
        ("/x/a.avif", .avif, "/x/a.avif"),
        ("/x/plain/http:/h/a.png@PNG.PNG", .png, "/x/plain/http:/h/a.png@PNG.PNG"),
        // or the URL names the format as nginx/thumbd.conf's format locations match it
        ("/x/plain/http:/h/a.jpg@webp", .webp, "/x/plain/http:/h/a.jpg@webp"),
        ("/x/plain/http:/h/a.png@jpeg", .jpeg, "/x/plain/http:/h/a.png@jpeg"),
        // otherwise the format's extension is appended
        ("/x/a.jpg", .png, "/x/a.jpg.png"),
        ("/x/a.png", .jpeg, "/x/a.png.jpg"),
        ("/x/plain/http:/h/a.jpg@PNG", .png, "/x/plain/http:/h/a.jpg@PNG.png"),
        ("/x/plain/http:/h/a.jpg@webp", .png, "/x/plain/http:/h/a.jpg@webp.png"),
        ("/x/plain/http:/h/a@webp/b", .webp, "/x/plain/http:/h/a@webp/b.webp"),
        ("/x/plain/http:/h/a", .png, "/x/plain/http:/h/a.png"),
        ("/x/aHR0cDovL2g", .jpeg, "/x/aHR0cDovL2g.jpg"),
        ("/x.png/a", .png, "/x.png/a.png"),
        ("/x/.png", .png, "/x/.png.png"),
    ])
    func storedWhereNginxLooksFirst(uri: String, format: ImageFormat, expected: String) {
        let path = CachePath(documentURI: uri, format: format)

        #expect(path.relative == expected)
        #expect(path.isServedByNginx)
        #expect(path.format == format)
    }

    /// nginx's `ngx_http_set_exten`: after the last dot of the last segment, unless the dot
    /// begins the segment; lowercased as nginx does before its `types` lookup.
    @Test(arguments: [
        ("/a/b.jpg", "jpg"),
        ("/a/b.JPG", "jpg"),
        ("/a/b.tar.gz", "gz"),
        ("/a/b..png", "png"),
        ("/a/b.", ""),
        ("/a/b", ""),
        ("/a.png/b", ""),
        ("/a/.png", ""),
        ("/a/b.png/", ""),
        ("/a.png", "png"),
        ("/x/plain/http:/h/a.jpg@webp", "jpg@webp"),
        ("", ""),
        ("/", ""),
    ])
    func nginxExtension(uri: String, expected: String) {
        #expect(CachePath.nginxExtension(of: uri) == expected)
    }

    /// 300-byte component; its SHA-256 (computed with Python's hashlib) has bytes below 0x10.
    static let longURI = "/insecure/w:300/plain/http:/h/" + String(repeating: "a", count: 300) + ".jpg"
    static let longURIDigest = "337f7d5ed003a977e6ca456f81a1fc5114588f9b784e4722f7c7af7a2abd061b"

    @Test func componentOverTheFileSystemLimitGoesToAStableHashedName() {
        let path = CachePath(documentURI: Self.longURI, format: .webp)

        #expect(path.relative.hasPrefix("/_hashed/"))
        #expect(path.relative.hasSuffix(".webp"))
        #expect(!path.isServedByNginx)
        #expect(path.format == .webp)
        #expect(path.relative.split(separator: "/").allSatisfy { $0.utf8.count <= 255 })
        #expect(CachePath(documentURI: Self.longURI, format: .webp) == path)
        #expect(CachePath(documentURI: Self.longURI + "b", format: .webp).relative != path.relative)
    }

    @Test func hashedNameIsTheFullSHA256InHex() {
        let path = CachePath(documentURI: Self.longURI, format: .jpeg)

        #expect(path.relative == "/_hashed/33/\(Self.longURIDigest).jpg")
    }

    @Test func appendedExtensionCanPushAComponentOverTheLimit() {
        // Given a last component of exactly 255 bytes that ends in .jpg
        let uri = "/x/" + String(repeating: "a", count: 251) + ".jpg"

        // Then JPEG stays at the URI, but WebP (which appends .webp) must be hashed
        #expect(CachePath(documentURI: uri, format: .jpeg).relative == uri)
        #expect(CachePath(documentURI: uri, format: .jpeg).isServedByNginx)
        #expect(!CachePath(documentURI: uri, format: .webp).isServedByNginx)
    }

    @Test func candidatesFollowTheProbeOrder() {
        #expect(CachePath.probeOrder == [.jpeg, .png, .webp, .gif, .avif])
        #expect(CachePath.candidates(documentURI: "/x/a").map(\.format) == CachePath.probeOrder)
        #expect(CachePath.candidates(documentURI: "/x/a").map(\.relative)
            == ["/x/a.jpg", "/x/a.png", "/x/a.webp", "/x/a.gif", "/x/a.avif"])
        #expect(CachePath.candidates(documentURI: "/x/a.png").map(\.relative)
            == ["/x/a.png.jpg", "/x/a.png", "/x/a.png.webp", "/x/a.png.gif", "/x/a.png.avif"])
        #expect(CachePath.candidates(documentURI: Self.longURI).allSatisfy { !$0.isServedByNginx })
        // A format the URL names leaves one place to look
        #expect(CachePath.candidates(documentURI: "/x/a@webp", format: .webp).map(\.relative) == ["/x/a@webp"])
    }

    @Test func aNegotiableURLsRenditionsAllVaryAndNoneIsAnotherClientsFallback() {
        // The rendition for clients that accept neither WebP nor AVIF, and a negotiated variant
        #expect(CachePath(documentURI: "/x/a", format: .png, naming: .suffixed).relative == "/x/a.auto.none.png")
        #expect(CachePath(documentURI: "/x/a", format: .webp, naming: .negotiated).relative == "/x/a.auto.webp")
        // A negotiating client is offered its variant only, never the plain rendition
        #expect(CachePath.candidates(documentURI: "/x/a", naming: .negotiated, format: .webp).map(\.relative)
            == ["/x/a.auto.webp"])
        #expect(CachePath.candidates(documentURI: "/x/a", naming: .suffixed).map(\.relative).first == "/x/a.auto.none.jpg")
    }

    @Test(arguments: ["webp", "png", "gif", "avif", "jpg", "jpeg"])
    func aPlainURLWithAFormatIsWhereNginxLooksFirst(format: String) throws {
        // nginx/thumbd.conf's location for `...@webp` serves $uri from the root and looks nowhere else
        let uri = "/sig/rs:fill:10:10/plain/http://h/a.jpg@\(format)"
        let path = CachePath(documentURI: uri, format: try #require(ImageFormat(extension: format)))
        #expect(path.relative == uri)
    }

    @Test func probeOrderAgreesWithNginxTryFiles() throws {
        // nginx/thumbd.conf: try_files $uri $uri.jpg $uri.png ... @thumbd
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let conf = try String(contentsOf: repository.appendingPathComponent("nginx/thumbd.conf"), encoding: .utf8)
        let tryFiles = try #require(conf.split(separator: "\n").first { $0.contains("try_files $uri") })

        let probed = tryFiles.split(separator: " ").filter { $0.hasPrefix("$uri.") }.map { $0.dropFirst(5) }

        #expect(probed.map(String.init) == CachePath.probeOrder.map(\.fileExtension))
    }
}
