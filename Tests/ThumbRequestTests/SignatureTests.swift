import Testing
import ThumbImaging
import ThumbdTestSupport
@testable import ThumbRequest
@testable import ThumbRuntime

/// imgproxy's URL signature, checked against its published vectors.
@Suite(.timeLimit(.minutes(2)))
struct SignatureTests {
    static let testKey = SignatureVerifier.KeyPair(key: Array("test-key".utf8), salt: Array("test-salt".utf8))
    static let otherKey = SignatureVerifier.KeyPair(key: Array("other-key".utf8), salt: Array("other-salt".utf8))

    static let asdSignature = "oWaL7QoW5TsgbuiS9-5-DI8S3Ibbo1gdB2SteJh3a20"
    static let asdSignatureOf8Bytes = "oWaL7QoW5Ts"

    struct Vector: Sendable, CustomTestStringConvertible {
        let pair: SignatureVerifier.KeyPair
        let size: Int
        let path: String
        let signature: String
        var testDescription: String { "\(path) size \(size)" }
    }

    /// Verbatim from DESIGN.md (imgproxy's documentation and `security/signature_test.go`).
    static let vectors = [
        Vector(pair: ImgproxySigningExample.keyPair, size: 32, path: ImgproxySigningExample.path, signature: ImgproxySigningExample.signature),
        Vector(pair: testKey, size: 32, path: "/asd", signature: asdSignature),
        Vector(pair: testKey, size: 8, path: "/asd", signature: asdSignatureOf8Bytes),
    ]

    @Test(arguments: vectors)
    func computesPublishedVector(_ vector: Vector) {
        let verifier = SignatureVerifier(pairs: [vector.pair], size: vector.size)

        #expect(verifier.signature(for: Substring(vector.path), with: vector.pair) == vector.signature)
    }

    @Test(arguments: vectors)
    func verifiesPublishedVector(_ vector: Vector) {
        let verifier = SignatureVerifier(pairs: [vector.pair], size: vector.size)

        #expect(throws: Never.self) {
            try verifier.verify(signature: Substring(vector.signature), path: Substring(vector.path))
        }
    }

    @Test(arguments: [
        ("wrong signature", "pKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8", ImgproxySigningExample.path),
        ("truncated signature", String(ImgproxySigningExample.signature.prefix(11)), ImgproxySigningExample.path),
        ("signature with an extra character", ImgproxySigningExample.signature + "A", ImgproxySigningExample.path),
        ("empty signature", "", ImgproxySigningExample.path),
        ("the literal insecure", "insecure", ImgproxySigningExample.path),
        ("changed path", ImgproxySigningExample.signature, ImgproxySigningExample.path.replacingOccurrences(of: "300", with: "301")),
        ("path without its extension", ImgproxySigningExample.signature, String(ImgproxySigningExample.path.dropLast(4))),
    ])
    func rejectsAsForbidden(_ what: String, signature: String, path: String) {
        let verifier = SignatureVerifier(pairs: [ImgproxySigningExample.keyPair])

        let error = #expect(throws: RequestFailure.self) {
            try verifier.verify(signature: Substring(signature), path: Substring(path))
        }

        #expect(error == .forbidden("invalid signature"), "\(what)")
    }

    @Test func fullSignatureIsRejectedWhenTheSizeIsEightBytes() {
        let verifier = SignatureVerifier(pairs: [Self.testKey], size: 8)

        #expect(throws: RequestFailure.self) { try verifier.verify(signature: Substring(Self.asdSignature), path: "/asd") }
    }

    @Test func eitherPairOfARotationVerifies() {
        // Given the old and the new key configured during a rotation
        let verifier = SignatureVerifier(pairs: [ImgproxySigningExample.keyPair, Self.testKey])

        // Then a URL signed with either verifies, and one signed with a third key does not
        #expect(throws: Never.self) {
            try verifier.verify(signature: Substring(ImgproxySigningExample.signature), path: Substring(ImgproxySigningExample.path))
        }
        #expect(throws: Never.self) { try verifier.verify(signature: Substring(Self.asdSignature), path: "/asd") }
        // HMAC-SHA256("other-key", "other-salt/asd"), computed with openssl
        #expect(throws: RequestFailure.self) {
            try verifier.verify(signature: "rphTaaL7g-0X54ECcwnEgGU87eItwX5UO8Bsf1_Nth0", path: "/asd")
        }
        // and a signature is valid only for the path it was made for
        #expect(throws: RequestFailure.self) { try verifier.verify(signature: Substring(Self.asdSignature), path: "/asdf") }
    }

    @Test func theVerifierSaysWhetherAKeyOrATrustedListLetASignaturePass() throws {
        // Given a key, and a trusted signature that is also a path's HMAC under that key
        let verifier = SignatureVerifier(pairs: [Self.testKey], trusted: ["PartnerSignature01", Self.asdSignature])

        // When each passes
        let signed = try verifier.verify(signature: Substring(Self.asdSignature), path: "/asdf")
        let keyed = try SignatureVerifier(pairs: [Self.testKey])
            .verify(signature: Substring(Self.asdSignature), path: "/asd")
        let trusted = try verifier.verify(signature: "PartnerSignature01", path: "/rs:fit:10/plain/http://h/red.png")
        let unchecked = try SignatureVerifier.insecure.verify(signature: "insecure", path: "/asd")

        // Then only the key's HMAC of the path is `hmac`; a trusted one is trusted, with any path
        // and even for the path whose HMAC it is
        #expect(keyed == .hmac)
        #expect(signed == .trusted)
        #expect(try verifier.verify(signature: Substring(Self.asdSignature), path: "/asd") == .trusted)
        #expect(trusted == .trusted)
        #expect(unchecked == .unchecked)
    }

    @Test func aTrustedSignatureNamesNoFileNginxServes() throws {
        // Given a key and a trusted signature
        let parser = RequestPathParser(verifier: SignatureVerifier(pairs: [Self.testKey], trusted: ["PartnerSignature01"]),
                                       baseURL: nil, policy: Renderer.encodePolicy)

        // When a URL signed by the key and two URLs with the trusted signature are parsed
        let keyed = try parser.parse(rawPath: parser.verifier.signedPath("/rs:fit:20:15/plain/http://h/red.png@png"))
        let red = try parser.parse(rawPath: "/PartnerSignature01/rs:fit:20:15/plain/http://h/red.png@png")
        let blueURI = "/PartnerSignature01/rs:fit:30:20/plain/http://h/blue.png@png"
        let blue = try parser.parse(requestURI: Array(blueURI.utf8))

        // Then only the key's carries its signature to name a file; the trusted ones carry none
        #expect(keyed.signature != nil)
        #expect(red.signature == nil && blue.signature == nil)
    }

    @Test(arguments: ["insecure", "anything", "", ImgproxySigningExample.signature])
    func inInsecureModeEverySignatureVerifies(_ signature: String) {
        let verifier = SignatureVerifier.insecure

        #expect(throws: Never.self) { try verifier.verify(signature: Substring(signature), path: "/w:300/plain/x") }
    }

    @Test(arguments: ["insecure", "anything", "", ImgproxySigningExample.signature])
    func withoutKeysNoSignatureVerifies(_ signature: String) {
        let verifier = SignatureVerifier(pairs: [])

        #expect(throws: RequestFailure.forbidden("invalid signature")) {
            try verifier.verify(signature: Substring(signature), path: Substring(ImgproxySigningExample.path))
        }
    }

    @Test func theSignatureCoversBytesThatAreNotUTF8AsTheyAre() {
        // Given a path with a byte that is not UTF-8, and the same path with U+FFFD, which a
        // decoder puts in its place
        let verifier = SignatureVerifier(pairs: [Self.testKey])
        let invalid = Array("/cb:".utf8) + [0xFF] + Array("/plain/http://h/a.jpg".utf8)
        let replaced = Array("/cb:\u{FFFD}/plain/http://h/a.jpg".utf8)

        // Then they have different signatures, and each verifies only its own bytes
        let signature = verifier.signature(for: invalid, with: Self.testKey)
        #expect(signature != verifier.signature(for: replaced, with: Self.testKey))
        #expect(throws: Never.self) { try verifier.verify(signature: Array(signature.utf8), path: invalid) }
        #expect(throws: RequestFailure.self) { try verifier.verify(signature: Array(signature.utf8), path: replaced) }
    }

    @Test func aSignedPathIsSignedWithTheFirstPairOrInsecureWithout() {
        // Given a rotation whose new pair is listed first, and no key at all
        let rotating = SignatureVerifier(pairs: [Self.testKey, ImgproxySigningExample.keyPair])
        let keyless = SignatureVerifier.insecure

        // Then the path is signed with the first pair, or marked insecure
        #expect(rotating.signedPath("/asd") == "/\(Self.asdSignature)/asd")
        #expect(SignatureVerifier(pairs: [Self.testKey], size: 8).signedPath("/asd") == "/\(Self.asdSignatureOf8Bytes)/asd")
        #expect(keyless.signedPath("/asd") == "/insecure/asd")
    }

    // MARK: Through the request path parser

    /// The documented path with `g:so` (thumbd's compass gravity), signed with "secret"/"hello"
    /// and, for rotation, with "other-key"/"other-salt"; both signatures computed with openssl.
    static let signedPath = "/rs:fill:300:400:0/g:so/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
    static let signedPathSignature = "8GEL8-RjjgnKbz4XHvM8kq9fcXNpmUhgaFDrVRPmC84"
    static let signedPathOtherSignature = "gcom_4-b1fQNSPmAisYk7ZWUAE89-3LdTYMKUaJ_mBc"

    @Test(arguments: [signedPathSignature, signedPathOtherSignature])
    func signedPathParses(_ signature: String) throws {
        let verifier = SignatureVerifier(pairs: [ImgproxySigningExample.keyPair, Self.otherKey])
        let parser = RequestPathParser(verifier: verifier, baseURL: nil, policy: Renderer.encodePolicy)

        // The query string is not signed, so appending one keeps the signature valid.
        let request = try parser.parse(rawPath: "/\(signature)\(Self.signedPath)?utm=1")

        #expect(request.sourceURL == "http://example.com/images/curiosity.jpg")
        #expect(request.options == .with {
            $0.resizingType = .fill
            $0.width = 300
            $0.height = 400
            $0.gravity = Gravity(anchor: .south)
            $0.format = .png
        })
    }

    @Test(arguments: [
        "/\(signedPathSignature)\(signedPath.replacingOccurrences(of: ":400:", with: ":401:"))",
        "/\(signedPathSignature)\(signedPath.replacingOccurrences(of: ".png", with: ".webp"))",
        "/\(signedPathSignature)\(signedPath.replacingOccurrences(of: "/g:so/", with: "/g:so/q:90/"))",
        "/\(signedPathOtherSignature)\(signedPath)",
        "/insecure\(signedPath)",
        "/\(signedPathSignature.dropLast())\(signedPath)",
    ])
    func tamperedPathIsForbidden(_ path: String) {
        let parser = RequestPathParser(verifier: SignatureVerifier(pairs: [ImgproxySigningExample.keyPair]), baseURL: nil,
                                       policy: Renderer.encodePolicy)

        #expect(throws: RequestFailure.forbidden("invalid signature")) { try parser.parse(rawPath: path) }
    }

    @Test func signatureIsCheckedBeforeTheOptions() {
        // A bad option under a bad signature tells the client nothing about the options.
        let parser = RequestPathParser(verifier: SignatureVerifier(pairs: [ImgproxySigningExample.keyPair]), baseURL: nil,
                                       policy: Renderer.encodePolicy)

        #expect(throws: RequestFailure.forbidden("invalid signature")) {
            try parser.parse(rawPath: "/bogus/zz:1/plain/http://h/a.jpg")
        }
    }
}
