import Testing
@testable import ThumbRequest
import ThumbImaging

/// AUTO_ and ENFORCE_ WebP/AVIF/JPEG XL as imgproxy reads the client's Accept header, and what a request
/// becomes once negotiated.
@Suite(.timeLimit(.minutes(1)))
struct FormatNegotiationTests {
    static let chrome = "image/avif,image/webp,image/apng,image/*,*/*;q=0.8"
    static let webpOnly = "image/webp,image/apng,image/*,*/*;q=0.8"
    static let neither = "image/apng,image/*,*/*;q=0.8"
    static let safari = "image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5"

    // imgproxy clientfeatures/detector_test.go TestFeaturesAutoFormats
    @Test(arguments: [
        (FormatNegotiation(webp: true), webpOnly, ImageFormat?.some(.webp)),
        (FormatNegotiation(webp: true), neither, nil),
        (FormatNegotiation(enforceWebp: true), webpOnly, .webp),
        (FormatNegotiation(enforceWebp: true), neither, nil),
        (FormatNegotiation(avif: true), "image/avif,image/apng,image/*,*/*;q=0.8", .avif),
        (FormatNegotiation(avif: true), neither, nil),
        (FormatNegotiation(enforceAvif: true), "image/avif,image/apng,image/*,*/*;q=0.8", .avif),
        (FormatNegotiation(enforceAvif: true), neither, nil),
        (FormatNegotiation(), "image/webp,image/avif,image/jxl,image/apng,image/*,*/*;q=0.8", nil),
        // AVIF before WebP when both are offered and accepted (docs: "the priority is ... AVIF, WebP")
        (FormatNegotiation(webp: true, avif: true), chrome, .avif),
        (FormatNegotiation(webp: true, avif: true), webpOnly, .webp),
        // JPEG XL after AVIF by default (fewer bytes at equal quality), before it in imgproxy's order
        (FormatNegotiation(webp: true, avif: true, jxl: true), safari, .avif),
        (FormatNegotiation(webp: true, avif: true, jxl: true), chrome, .avif),
        (FormatNegotiation(webp: true, jxl: true), safari, .jxl),
        (FormatNegotiation(webp: true, jxl: true), webpOnly, .webp),
        (FormatNegotiation(webp: true, avif: true, jxl: true, order: [.jxl, .avif, .webp]), safari, .jxl),
        (FormatNegotiation(webp: true, avif: true, jxl: true, order: [.webp, .jxl, .avif]), safari, .webp),
        (FormatNegotiation(jxl: true), chrome, nil),
    ])
    func aURLWithoutAFormatTakesWhatAcceptOffers(_ negotiation: FormatNegotiation, _ accept: String, _ expected: ImageFormat?) {
        #expect(negotiation.format(for: accept, formatInURL: nil) == expected)
        #expect(negotiation.varies(formatInURL: nil) == (negotiation != FormatNegotiation()))
    }

    // imgproxy options/parser/processing_options_test.go TestParsePathWebpEnforce, TestParsePathAvifEnforce;
    // processing/processing.go determineOutputFormat: only Enforce* overrides a format the URL names
    @Test(arguments: [
        (FormatNegotiation(webp: true, avif: true), chrome, ImageFormat?.none),
        (FormatNegotiation(enforceWebp: true), chrome, .webp),
        (FormatNegotiation(enforceWebp: true), neither, nil),
        (FormatNegotiation(enforceAvif: true), chrome, .avif),
        (FormatNegotiation(enforceWebp: true, enforceAvif: true), webpOnly, .webp),
        // AUTO_AVIF does not override the URL's format, ENFORCE_WEBP does
        (FormatNegotiation(avif: true, enforceWebp: true), chrome, .webp),
        (FormatNegotiation(enforceJxl: true), safari, .jxl),
        (FormatNegotiation(enforceJxl: true), chrome, nil),
        (FormatNegotiation(enforceAvif: true, enforceJxl: true), safari, .avif),
    ])
    func aURLWithAFormatIsOverriddenOnlyByAnEnforcedOne(_ negotiation: FormatNegotiation, _ accept: String,
                                                       _ expected: ImageFormat?) {
        #expect(negotiation.format(for: accept, formatInURL: .png) == expected)
        #expect(negotiation.varies(formatInURL: .png)
            == (negotiation.enforceWebp || negotiation.enforceAvif || negotiation.enforceJxl))
    }

    /// imgproxy (strings.Contains) and nginx's `map` (`~`, case-sensitive) match Accept as it is
    /// written: thumbd too, so that a miss and the hits after it agree.
    @Test func acceptIsMatchedCaseSensitively() {
        #expect(FormatNegotiation(webp: true).format(for: "IMAGE/WEBP", formatInURL: nil) == nil)
    }

    @Test func aNegotiatedRequestKeepsTheURLsFormatAndItsOwnKey() {
        // Given a URL that names PNG while WebP is enforced
        var options = ProcessingOptions()
        options.format = .png
        let request = ThumbnailRequest(sourceURL: "http://h/a.jpg", options: options, policy: Renderer.encodePolicy)

        // When a WebP client and a client that accepts neither ask
        let webp = request.negotiating(FormatNegotiation(enforceWebp: true), accept: Self.webpOnly)
        let plain = request.negotiating(FormatNegotiation(enforceWebp: true), accept: Self.neither)

        // Then the first gets WebP, the other the URL's PNG, both varying by Accept, with two keys
        #expect((webp.options.format, webp.negotiated, webp.variesByAccept) == (.webp, true, true))
        #expect((plain.options.format, plain.negotiated, plain.variesByAccept) == (.png, false, true))
        #expect(webp.formatInURL == .png && plain.formatInURL == .png)
        #expect(webp.key != plain.key && plain.key == request.key)
    }

    // imgproxy handlers/processing/handler.go: raw streams the source before any format is chosen
    @Test func rawIsNeverNegotiated() {
        var options = ProcessingOptions()
        options.raw = true
        let request = ThumbnailRequest(sourceURL: "http://h/a.jpg", options: options, policy: Renderer.encodePolicy)
        let negotiated = request.negotiating(FormatNegotiation(webp: true, avif: true), accept: Self.chrome)
        #expect(negotiated == request)
    }

    // imgproxy processing/processing.go shouldSkipStandardProcessing: decided on the URL's own
    // format, before the client's preferred format is chosen
    @Test func skippingIsDecidedOnTheURLsOwnFormat() {
        var options = ProcessingOptions()
        options.skipProcessing = [.jpeg]
        let request = ThumbnailRequest(sourceURL: "http://h/a.jpg", options: options, policy: Renderer.encodePolicy)
        let negotiated = request.negotiating(FormatNegotiation(webp: true), accept: Self.webpOnly)

        #expect(negotiated.options.format == .webp)
        #expect(negotiated.passesThrough(.jpeg))
        #expect(!negotiated.passesThrough(.png))
        // a URL without skp but otherwise the same is another thumbnail
        var plain = options
        plain.skipProcessing = []
        let plainNegotiated = ThumbnailRequest(sourceURL: "http://h/a.jpg", options: plain,
                                               policy: Renderer.encodePolicy)
            .negotiating(FormatNegotiation(webp: true), accept: Self.webpOnly)
        #expect(plainNegotiated.key != negotiated.key)
    }
}
