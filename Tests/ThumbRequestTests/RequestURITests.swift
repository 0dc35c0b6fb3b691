import Testing
@testable import ThumbRequest
@testable import ThumbRuntime
import ThumbImaging

/// REQUEST_URI as nginx passes it: the signature over its bytes, and the same thumbnail whether
/// the path is read as sent or as nginx decodes it into the path the answer is stored at.
@Suite(.timeLimit(.minutes(2)))
struct RequestURITests {
    /// The sources below start with the base URL, so it leaves them as they are.
    static let insecure = RequestPathParser(verifier: .insecure, baseURL: "http://h/", policy: Renderer.encodePolicy)
    static let keyed = RequestPathParser(verifier: SignatureVerifier(pairs: [SignatureTests.testKey]), baseURL: nil,
                                         policy: Renderer.encodePolicy)
    static let unsigned = RequestPathParser(verifier: .insecure, baseURL: nil, policy: Renderer.encodePolicy)

    static func parse(_ parser: RequestPathParser, _ requestURI: String) throws(RequestFailure) -> ThumbnailRequest {
        try parser.parse(requestURI: Array(requestURI.utf8))
    }

    /// Escapes that mean the same decoded: in a plain source URL (once, as imgproxy asks),
    /// UTF-8, a query of the source's (escaped) or of the client's (not).
    @Test(arguments: [
        ("/insecure/w:10/plain/http%3A%2F%2Fh%2Fa.jpg", "http://h/a.jpg"),
        ("/insecure/w:10/plain/http://h/a%20b.jpg@png", "http://h/a b.jpg"),
        ("/insecure/w:10/plain/http://h/caf%C3%A9.jpg", "http://h/caf\u{E9}.jpg"),
        ("/insecure/w:10/plain/http://h/caf\u{E9}.jpg", "http://h/caf\u{E9}.jpg"),
        ("/insecure/w:10/plain/http://h/a.jpg%3Fv%3D2@png", "http://h/a.jpg?v=2"),
        ("/insecure/w:10/plain/http://h/a.jpg@png?utm=%2F", "http://h/a.jpg"),
        ("/insecure/w:10/aHR0cDovL2gvYS5qcGc.png", "http://h/a.jpg"),
        ("/insecure/w:10/plain/b.jpg", "http://h/b.jpg"),
        // escaped as a whole with escapes of its own: decoded once, they stay for the fetch
        ("/insecure/w:10/plain/http://h/a%2520b.jpg", "http://h/a%20b.jpg"),
        ("/insecure/w:10/plain/http%3A%2F%2Fh%2F%25C3%25A9t%25C3%25A9%2520photo%252001.jpg@png",
         "http://h/%C3%A9t%C3%A9%20photo%2001.jpg"),
    ])
    func readsAsTheSameThumbnailDecoded(_ requestURI: String, source: String) throws {
        let request = try Self.parse(Self.insecure, requestURI)

        #expect(request.sourceURL == source)
        #expect(request.options.width == 10)
    }

    /// Escapes that change what the path asks for once decoded (`%3a`: only `%3A` is repaired).
    @Test(arguments: [
        ("an option hidden in an escaped /", "/insecure/cb:1%2Fwm%3a0.5%3ace/plain/http://h/a.jpg"),
        ("an option hidden in a file name", "/insecure/fn:a%2Fwm%3A0.5/plain/http://h/a.jpg"),
        ("an argument split by an escaped lower-case :", "/insecure/fn:photo%3at/plain/http://h/a.jpg"),
        ("an escaped : in a source that reads as another scheme", "/insecure/w:10/plain/http:/%2Fh/a.jpg"),
        ("an escaped extension marker", "/insecure/w:10/plain/http://h/a.jpg%40png"),
        ("an escaped escape of a slash", "/insecure/w:10/plain/http://h/a%252Fb.jpg"),
        ("an escape escaped twice", "/insecure/w:10/plain/http://h/a%252520b.jpg"),
        ("an escaped slash in the signature", "/insec%2Fure/w:10/plain/http://h/a.jpg"),
        ("another source once decoded", "/insecure/cb:a%2Fplain%2Fhttp%3a%2F%2Fother%2Fx.jpg/plain/http://h/a.jpg"),
    ])
    func refusesWhatReadsOtherwiseDecoded(_ what: String, requestURI: String) {
        let error = #expect(throws: RequestFailure.self, "\(what)") { try Self.parse(Self.insecure, requestURI) }

        #expect(error?.kind == "bad_request", "\(what): \(String(describing: error))")
    }

    /// What proxies and CDNs do to paths, repaired before the signature is checked, as imgproxy's
    /// handlers/path.go `RedenormalizePath` does: the spelling as sent, signed as built (repaired),
    /// asks for the thumbnail the repaired path names, and so does its decoded form, which nginx
    /// stores it at and which, asked for itself, is repaired the same way.
    @Test(arguments: [
        ("/w%3A10/rs%3Afill%3A%3A20/plain/http://h/a.jpg", "/w:10/rs:fill::20/plain/http://h/a.jpg"),
        ("/w%3A10/aHR0cDovL2gvYS5qcGc.png", "/w:10/aHR0cDovL2gvYS5qcGc.png"),
        ("/w:10/plain/http:/h/a.jpg", "/w:10/plain/http://h/a.jpg"),
        ("/w%3A10/plain/https:/h/a.jpg@png", "/w:10/plain/https://h/a.jpg@png"),
        ("/w:10/plain/http%3A%2F%2Fh%2Fa.jpg", "/w:10/plain/http%3A%2F%2Fh%2Fa.jpg"),
        ("/w:10/plain/http:/h/a%20b.jpg?x=1", "/w:10/plain/http://h/a%20b.jpg"),
    ])
    func repairsWhatProxiesRewriteBeforeTheSignature(_ sent: String, signedAs built: String) throws {
        // Given a URL signed as built, and the spelling a proxy passes on
        let verifier = Self.keyed.verifier
        let signature = verifier.signature(for: Substring(built), with: verifier.pairs[0])

        // When the spelling is asked for, and its decoded form (where nginx stores it), which
        // only the signature's file name serves in keyed mode: read unsigned
        let request = try Self.parse(Self.keyed, "/\(signature)\(sent)")
        let decoded = try Self.parse(Self.unsigned, URIDecoding.decodedPath("/insecure\(sent)")!)

        // Then both are the thumbnail the built path names
        let asBuilt = try Self.parse(Self.keyed, "/\(signature)\(built)")
        #expect(request == asBuilt)
        #expect((decoded.sourceURL, decoded.options) == (asBuilt.sourceURL, asBuilt.options))
        #expect(request.options.width == 10)
        // and a signature over the bytes sent, not repaired, does not verify
        if sent.split(separator: "?")[0] != built {
            #expect(throws: RequestFailure.forbidden("invalid signature")) {
                try Self.parse(Self.keyed, verifier.signedPath(sent))
            }
        }
    }

    static let notUTF8: [(String, [UInt8])] = [
        ("a raw byte that is not UTF-8", Array("/insecure/cb:".utf8) + [0xFF] + Array("/plain/http://h/a.jpg".utf8)),
        ("an escape that is not UTF-8", Array("/insecure/cb:%FF/plain/http://h/a.jpg".utf8)),
        ("a lone lead byte completed by an escape", Array("/insecure/cb:".utf8) + [0xC3] + Array("%A9/plain/http://h/a.jpg".utf8)),
        ("an escaped NUL", Array("/insecure/cb:%00/plain/http://h/a.jpg".utf8)),
    ]

    @Test(arguments: notUTF8)
    func refusesWhatIsNotUTF8(_ what: String, requestURI: [UInt8]) {
        #expect(throws: RequestFailure.badRequest("path is not UTF-8 once percent-decoded, or has a NUL or a dot segment"), "\(what)") {
            try Self.insecure.parse(requestURI: requestURI)
        }
    }

    @Test func theSignatureIsCheckedFirstAndOverTheBytesSent() throws {
        // Given a path signed over its bytes, one that reads otherwise decoded, and a forgery
        let path = "/w:10/plain/http://h/a.jpg"
        let verifier = Self.keyed.verifier
        let signed = verifier.signedPath(path)
        let escaped = verifier.signedPath("/cb:1%2Fw%3A20/plain/http://h/a.jpg")
        let replaced = Array("/cb:\u{FFFD}\(path)".utf8)
        let forged = Array("/\(verifier.signature(for: replaced, with: verifier.pairs[0]))/cb:".utf8) + [0xFF] + Array(path.utf8)

        // Then the first verifies, the second is refused for its escapes, the forgery as forged
        #expect(try Self.parse(Self.keyed, signed).options.width == 10)
        #expect(throws: RequestFailure.self) { try Self.parse(Self.keyed, escaped) }
        #expect(throws: RequestFailure.forbidden("invalid signature")) { try Self.keyed.parse(requestURI: forged) }
        #expect(throws: RequestFailure.forbidden("invalid signature")) { try Self.parse(Self.keyed, "/insecure\(path)") }
    }
}
