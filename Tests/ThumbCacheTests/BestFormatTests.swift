import Testing
@testable import ThumbCache
@testable import ThumbImaging
@testable import ThumbRequest

/// imgproxy Pro's best format: how a URL asks for it, what a client's class makes of it, the
/// candidates tried, and where the winner is stored.
@Suite(.timeLimit(.minutes(1)))
struct BestFormatTests {
    static let chrome = "image/avif,image/webp,image/apng,image/*,*/*;q=0.8"

    static func parse(_ path: String, base: ProcessingOptions = ProcessingOptions()) throws -> ThumbnailRequest {
        try RequestPathParser(verifier: .insecure, baseURL: nil, options: OptionParser(base: base),
                              policy: Renderer.encodePolicy)
            .parse(rawPath: path)
    }

    @Test(arguments: [
        ("/insecure/w:300/plain/http://h/a.jpg@best", true),
        ("/insecure/f:best/w:300/plain/http://h/a.jpg", true),
        ("/insecure/w:300/aHR0cDovL2gvYS5qcGc.best", true),
        // a format named after it wins, as the URL's extension wins over f
        ("/insecure/f:best/f:png/plain/http://h/a.jpg", false),
        ("/insecure/f:best/plain/http://h/a.jpg@webp", false),
        ("/insecure/f:png/plain/http://h/a.jpg@best", true),
    ])
    func aURLAsksForTheBestFormatByNameOrExtension(path: String, best: Bool) throws {
        let request = try Self.parse(path)
        #expect(request.options.bestFormat == best)
        #expect(best ? request.options.format == nil : request.options.format != nil)
    }

    @Test func byDefaultAURLThatNamesNoFormatIsBest() throws {
        var base = ProcessingOptions()
        base.bestFormat = true
        #expect(try Self.parse("/insecure/w:300/plain/http://h/a.jpg", base: base).options.bestFormat)
        #expect(try !Self.parse("/insecure/w:300/plain/http://h/a.jpg@png", base: base).options.bestFormat)
    }

    @Test func eachClassIsItsOwnThumbnailStoredUnderItsClass() throws {
        // Given a best URL and negotiation of AVIF and WebP
        let request = try Self.parse("/insecure/w:300/plain/http://h/a.jpg@best")
        let negotiation = FormatNegotiation(webp: true, avif: true)

        // When Chrome, a WebP client and one that accepts neither ask
        let avif = request.negotiating(negotiation, accept: Self.chrome)
        let webp = request.negotiating(negotiation, accept: "image/webp,*/*")
        let none = request.negotiating(negotiation, accept: "image/png,*/*")

        // Then each has its class, its key, and its name, whichever format wins
        #expect((avif.options.bestNegotiated, webp.options.bestNegotiated, none.options.bestNegotiated) == (.avif, .webp, nil))
        #expect(Set([avif.key, webp.key, none.key]).count == 3)
        #expect(avif.variesByAccept && none.variesByAccept)
        #expect(avif.cachePath(documentURI: "/s/x", format: .png).relative.hasSuffix(".best.avif.png"))
        #expect(none.cachePath(documentURI: "/s/x", format: .jpeg).relative.hasSuffix(".best.none.jpg"))
        // and without negotiation the name has no class
        #expect(request.negotiating(FormatNegotiation(), accept: Self.chrome).cachePath(documentURI: "/s/x", format: .jpeg)
            .relative.hasSuffix(".best.jpg"))
    }

    @Test func theCandidatesAreTheClientsFormatThenThePreferredOnesThatKeepWhatTheResultHas() {
        let candidates = BestFormatCandidates(negotiated: .avif, preferred: PreferredFormats([.jpeg, .png, .gif, .avif])!)
        #expect(candidates.formats == [.avif, .jpeg, .png, .gif])
        // one target for all (autoquality's): every lossy format competes
        #expect(candidates.fitting(animated: false, transparent: false, commonTarget: true) == [.avif, .jpeg, .png])
        // each at its own quality: the first lossy one and the lossless ones
        #expect(candidates.fitting(animated: false, transparent: false, commonTarget: false) == [.avif, .png])
        #expect(candidates.fitting(animated: false, transparent: true, commonTarget: true) == [.avif, .png])
        #expect(candidates.fitting(animated: true, transparent: false, commonTarget: false) == [.avif, .gif])
        let plain = BestFormatCandidates(negotiated: nil, preferred: .standard)
        #expect(plain.fitting(animated: false, transparent: false, commonTarget: false) == [.jpeg, .png])
    }
}
