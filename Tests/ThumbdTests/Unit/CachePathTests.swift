import Foundation
import Testing
import ThumbImaging
import ThumbdTestSupport
@testable import ThumbCache
@testable import ThumbRequest
@testable import ThumbOps

/// Where a thumbnail is stored: one fan-out directory deep, named by its URL's signature where
/// NginxSite's locations find it, or privately by its URI's digest.
@Suite(.timeLimit(.minutes(2)))
struct CachePathTests {
    static let signature = "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8"

    @Test(arguments: [
        (CachePath.Naming.shared, ImageFormat.jpeg, "/served/o/\(signature).jpg"),
        (.shared, .webp, "/served/o/\(signature).webp"),
        (.shared, .avif, "/served/o/\(signature).avif"),
        (.negotiated, .webp, "/served/o/\(signature).auto.webp"),
        (.suffixed, .png, "/served/o/\(signature).auto.none.png"),
    ])
    func aSignedURLIsStoredByItsSignature(naming: CachePath.Naming, format: ImageFormat, expected: String) {
        let path = CachePath(signature: Self.signature, documentURI: "/\(Self.signature)/w:10/plain/http://h/a.jpg",
                             format: format, naming: naming)

        #expect(path.relative == expected)
        #expect(path.isServedByNginx)
        #expect(path.format == format)
        #expect(path.relative.utf8.count <= IndexLayout.Slot.pathCapacity)
    }

    @Test func theLongestNameFitsAnIndexSlot() {
        let path = CachePath(signature: Self.signature, documentURI: "/x", format: .avif, naming: .suffixed)

        #expect(path.relative.utf8.count == CachePath.maximumLength)
        #expect(CachePath.maximumLength <= IndexLayout.Slot.pathCapacity)
    }

    @Test func withoutAVerifiedSignatureTheThumbnailIsPrivateByItsURIsDigest() {
        // Given insecure mode: no signature names a file
        let uri = "/insecure/w:300/plain/http://h/" + String(repeating: "a", count: 300) + ".jpg"

        let path = CachePath(signature: nil, documentURI: uri, format: .webp)

        // Then the name is the first 16 bytes of the URI's SHA-256 (Python's hashlib), under private/
        #expect(path.relative == "/private/8/8b9f765d71dc1044e488856a64004bdc.webp")
        #expect(!path.isServedByNginx)
        #expect(CachePath(signature: nil, documentURI: uri + "b", format: .webp).relative != path.relative)
    }

    @Test func twoURLsWithOneTrustedSignatureHaveTwoPrivateNames() throws {
        // Given a trusted signature, and two URLs that carry it (other sources, sizes)
        let parser = RequestPathParser(verifier: SignatureVerifier(pairs: [], trusted: ["PartnerSignature01"]),
                                       baseURL: nil, policy: Renderer.encodePolicy)
        let uris = ["/PartnerSignature01/rs:fit:20:15/plain/http://h/red.png@png",
                    "/PartnerSignature01/rs:fit:30:20/plain/http://h/blue.png@png"]

        // When each is named in the cache
        let paths = try uris.map { try parser.parse(rawPath: $0).cachePath(documentURI: $0, format: .png) }

        // Then each has its own private name, by its URI, and none is one nginx serves
        #expect(paths.allSatisfy { !$0.isServedByNginx && $0.relative.hasPrefix("/private/") })
        #expect(paths[0] != paths[1])
        let served = Set(CachePath.servedNames(signature: "PartnerSignature01").map(\.relative))
        #expect(paths.allSatisfy { !served.contains($0.relative) })
    }

    @Test func servedNamesAreEveryFileNginxFindsForASignature() {
        let names = Set(CachePath.servedNames(signature: "abc").map(\.relative))

        // Every file a URL with the signature may be answered from, in any naming nginx probes
        #expect(names.count == (3 + CachePath.bestNamings.count) * ImageFormat.allCases.count)
        #expect(names.contains("/served/a/abc.png") && names.contains("/served/a/abc.auto.webp")
            && names.contains("/served/a/abc.auto.none.jpg"))
        let served = CachePath.everyName(signature: "abc", documentURI: "/abc/x").filter(\.isServedByNginx)
        #expect(names == Set(served.map(\.relative)))
        // A signature nginx's locations cannot capture has none
        #expect(CachePath.servedNames(signature: "ab/cd").isEmpty)
    }

    @Test func aThumbnailOnlyThumbdMayAnswerIsPrivateEvenWhenSigned() {
        let path = CachePath(signature: Self.signature, documentURI: "/x/y", format: .png, naming: .thumbdOnly)

        #expect(path.relative.hasPrefix("/private/"))
        #expect(!path.isServedByNginx)
    }

    @Test(arguments: ["", "a", "ab/cd", "ab.cd", "../x", "ab%2F", String(repeating: "a", count: 44)])
    func aSignatureNginxCouldNotCaptureIsNeverAServedName(signature: String) {
        #expect(!CachePath(signature: signature, documentURI: "/x", format: .jpeg).isServedByNginx)
    }

    @Test func candidatesFollowTheProbeOrder() {
        #expect(CachePath.probeOrder == [.jpeg, .png, .webp, .gif, .avif, .jxl])
        #expect(CachePath.candidates(signature: "abc", documentURI: "/abc/x").map(\.relative)
            == ["/served/a/abc.jpg", "/served/a/abc.png", "/served/a/abc.webp", "/served/a/abc.gif", "/served/a/abc.avif",
                "/served/a/abc.jxl"])
        // A format the URL names, or negotiation picks, leaves one place to look
        #expect(CachePath.candidates(signature: "abc", documentURI: "/abc/x@webp", format: .webp).map(\.relative)
            == ["/served/a/abc.webp"])
        #expect(CachePath.candidates(signature: "abc", documentURI: "/abc/x", naming: .negotiated, format: .webp)
            .map(\.relative) == ["/served/a/abc.auto.webp"])
    }

    @Test func everyNameCoversEveryNamingAndFormat() {
        let names = CachePath.everyName(signature: "abc", documentURI: "/abc/x")

        #expect(names.count == (4 + CachePath.bestNamings.count) * CachePath.probeOrder.count)
        #expect(Set(names.map(\.relative)).count == names.count)
    }

    /// NginxSite must probe the formats in CachePath's order and name files as it does.
    @Test func nginxLooksWhereThumbdStores() throws {
        var site = NginxSite()
        site.cacheRoot = "/cache"
        let conf = site.text
        let name = "/$thumbd_c/$thumbd_c$thumbd_s"
        let start = try #require(conf.range(of: "try_files \(name)$thumbd_negotiated"))
        let tryFiles = conf[start.upperBound...].prefix { $0 != ";" }

        let probed = tryFiles.split(whereSeparator: \.isWhitespace).prefix(CachePath.probeOrder.count)
            .map { $0.dropFirst(name.count + 1) }

        #expect(probed.map(String.init) == CachePath.probeOrder.map(\.fileExtension))
        for format in CachePath.probeOrder {
            #expect(conf.contains("alias /cache/served\(name).\(format.fileExtension);"))
        }
    }
}
