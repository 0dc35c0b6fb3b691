import Testing
import ThumbImaging
import ThumbdTestSupport
@testable import ThumbRequest
@testable import ThumbRuntime

/// imgproxy's URL grammar as `RequestPathParser` reads it, without signing (no key pairs).
@Suite(.timeLimit(.minutes(2)))
struct OptionParsingTests {
    static let baseURL = "http://images.example/"
    /// `http://example.com/images/curiosity.jpg`, split by `/` as imgproxy's documentation does.
    static let splitBase64 = "aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn"
    static let curiosity = "http://example.com/images/curiosity.jpg"

    struct Valid: Sendable, CustomTestStringConvertible {
        let path: String
        var baseURL: String? = nil
        var source = "http://h/a.jpg"
        let options: ProcessingOptions
        var testDescription: String { path }
    }

    static let valid: [Valid] = [
        // rs / resize with 1 to 5 arguments
        Valid(path: "/insecure/rs:fill/plain/http://h/a.jpg", options: .with { $0.resizingType = .fill }),
        Valid(path: "/insecure/rs:fill:300/plain/http://h/a.jpg",
              options: .with { $0.resizingType = .fill; $0.width = 300 }),
        Valid(path: "/insecure/rs:fill:300:200/plain/http://h/a.jpg",
              options: .with { $0.resizingType = .fill; $0.width = 300; $0.height = 200 }),
        Valid(path: "/insecure/rs:force:300:200:1/plain/http://h/a.jpg",
              options: .with { $0.resizingType = .force; $0.width = 300; $0.height = 200; $0.enlarge = true }),
        Valid(path: "/insecure/rs:fit:300:200:t:0/plain/http://h/a.jpg",
              options: .with { $0.width = 300; $0.height = 200; $0.enlarge = true }),
        Valid(path: "/insecure/resize:fill:10:20/plain/http://h/a.jpg",
              options: .with { $0.resizingType = .fill; $0.width = 10; $0.height = 20 }),
        // s / size
        Valid(path: "/insecure/s:300:200/plain/http://h/a.jpg", options: .with { $0.width = 300; $0.height = 200 }),
        Valid(path: "/insecure/size:300:200:true/plain/http://h/a.jpg",
              options: .with { $0.width = 300; $0.height = 200; $0.enlarge = true }),
        Valid(path: "/insecure/s:300/plain/http://h/a.jpg", options: .with { $0.width = 300 }),
        // rt / resizing_type
        Valid(path: "/insecure/rt:fit/plain/http://h/a.jpg", options: .with { $0.resizingType = .fit }),
        Valid(path: "/insecure/rt:fill/plain/http://h/a.jpg", options: .with { $0.resizingType = .fill }),
        Valid(path: "/insecure/resizing_type:force/plain/http://h/a.jpg", options: .with { $0.resizingType = .force }),
        // w / width, h / height
        Valid(path: "/insecure/w:300/plain/http://h/a.jpg", options: .with { $0.width = 300 }),
        Valid(path: "/insecure/width:16384/plain/http://h/a.jpg", options: .with { $0.width = 16_384 }),
        Valid(path: "/insecure/h:200/plain/http://h/a.jpg", options: .with { $0.height = 200 }),
        Valid(path: "/insecure/height:16384/plain/http://h/a.jpg", options: .with { $0.height = 16_384 }),
        // el / enlarge
        Valid(path: "/insecure/el:1/plain/http://h/a.jpg", options: .with { $0.enlarge = true }),
        Valid(path: "/insecure/enlarge:t/plain/http://h/a.jpg", options: .with { $0.enlarge = true }),
        Valid(path: "/insecure/el:true/el:false/plain/http://h/a.jpg", options: .with { $0.enlarge = false }),
        Valid(path: "/insecure/el:true/el:yes/plain/http://h/a.jpg", options: .with { $0.enlarge = false }),
        // q / quality
        Valid(path: "/insecure/q:0/plain/http://h/a.jpg", options: .with { $0.quality = 0 }),
        Valid(path: "/insecure/q:100/plain/http://h/a.jpg", options: .with { $0.quality = 100 }),
        Valid(path: "/insecure/quality:55/plain/http://h/a.jpg", options: .with { $0.quality = 55 }),
        // f / format / ext
        Valid(path: "/insecure/f:png/plain/http://h/a.jpg", options: .with { $0.format = .png }),
        Valid(path: "/insecure/format:webp/plain/http://h/a.jpg", options: .with { $0.format = .webp }),
        Valid(path: "/insecure/ext:jpg/plain/http://h/a.jpg", options: .with { $0.format = .jpeg }),
        Valid(path: "/insecure/f:jpeg/plain/http://h/a.jpg", options: .with { $0.format = .jpeg }),
        Valid(path: "/insecure/f:AVIF/plain/http://h/a.jpg", options: .with { $0.format = .avif }),
        // g / gravity: compass names and offsets
        Valid(path: "/insecure/g:no/plain/http://h/a.jpg", options: .with { $0.gravity = Gravity(anchor: .north) }),
        Valid(path: "/insecure/g:soea/plain/http://h/a.jpg",
              options: .with { $0.gravity = Gravity(anchor: .southEast) }),
        Valid(path: "/insecure/gravity:we/plain/http://h/a.jpg",
              options: .with { $0.gravity = Gravity(anchor: .west) }),
        Valid(path: "/insecure/g:nowe:10:20/plain/http://h/a.jpg",
              options: .with { $0.gravity = Gravity(anchor: .northWest, offsetX: 10, offsetY: 20) }),
        Valid(path: "/insecure/g:ce:-5:2.5/plain/http://h/a.jpg",
              options: .with { $0.gravity = Gravity(anchor: .center, offsetX: -5, offsetY: 2.5) }),
        Valid(path: "/insecure/g:ea::7/plain/http://h/a.jpg",
              options: .with { $0.gravity = Gravity(anchor: .east, offsetX: 0, offsetY: 7) }),
        // any order; a later option overrides an earlier one; empty arguments keep the value
        Valid(path: "/insecure/h:200/rt:fill/w:300/plain/http://h/a.jpg",
              options: .with { $0.resizingType = .fill; $0.width = 300; $0.height = 200 }),
        Valid(path: "/insecure/w:100/w:300/plain/http://h/a.jpg", options: .with { $0.width = 300 }),
        Valid(path: "/insecure/rs:fit:100:100/rt:fill/s:300/plain/http://h/a.jpg",
              options: .with { $0.resizingType = .fill; $0.width = 300; $0.height = 100 }),
        Valid(path: "/insecure/rs:fill:300:200:1/rs::::/plain/http://h/a.jpg",
              options: .with { $0.resizingType = .fill; $0.width = 300; $0.height = 200; $0.enlarge = true }),
        Valid(path: "/insecure/rs:fill:300:200/rs:::150/plain/http://h/a.jpg",
              options: .with { $0.resizingType = .fill; $0.width = 300; $0.height = 150 }),
        Valid(path: "/insecure/w:300/s::200/plain/http://h/a.jpg", options: .with { $0.width = 300; $0.height = 200 }),
        // no options at all
        Valid(path: "/insecure/plain/http://h/a.jpg", options: ProcessingOptions()),
        // plain sources: @ext, percent-encoding, `@` that is not the extension marker
        Valid(path: "/insecure/plain/http://h/a.jpg@webp", options: .with { $0.format = .webp }),
        Valid(path: "/insecure/plain/http%3A%2F%2Fh%2Fa%20b.jpg", source: "http://h/a b.jpg",
              options: ProcessingOptions()),
        Valid(path: "/insecure/plain/http://h/a%40b.jpg@png", source: "http://h/a@b.jpg",
              options: .with { $0.format = .png }),
        Valid(path: "/insecure/plain/http://user@h/a.jpg", source: "http://user@h/a.jpg", options: ProcessingOptions()),
        // base64url sources, split by `/`, with and without `.ext`
        Valid(path: "/insecure/rs:fill:300:400:0/\(splitBase64).png", source: curiosity,
              options: .with { $0.resizingType = .fill; $0.width = 300; $0.height = 400; $0.format = .png }),
        Valid(path: "/insecure/aHR0cDovL2V4YW1wbGUuY29tL2ltYWdlcy9jdXJpb3NpdHkuanBn", source: curiosity,
              options: ProcessingOptions()),
        // the query string is not part of the thumbnail
        Valid(path: "/insecure/w:300/plain/http://h/a.jpg?w=999&f=png", options: .with { $0.width = 300 }),
        Valid(path: "/insecure/\(splitBase64).webp?cache=no", source: curiosity, options: .with { $0.format = .webp }),
        // with a base URL, a source that does not start with it is put after it, a scheme or not
        // (imgproxy's BASE_URL); one that starts with it is taken as it is
        Valid(path: "/insecure/plain/images/a.jpg", baseURL: baseURL, source: "http://images.example/images/a.jpg",
              options: ProcessingOptions()),
        Valid(path: "/insecure/aW1hZ2VzL2EuanBn.png", baseURL: baseURL, source: "http://images.example/images/a.jpg",
              options: .with { $0.format = .png }),
        Valid(path: "/insecure/plain/https://other.example/a.jpg", baseURL: baseURL,
              source: "http://images.example/https://other.example/a.jpg", options: ProcessingOptions()),
        Valid(path: "/insecure/plain/http://images.example/a.jpg", baseURL: baseURL,
              source: "http://images.example/a.jpg", options: ProcessingOptions()),
        // without one, a scheme is a letter, then letters, digits, + . -, then "://"; anything else is a path
        Valid(path: "/insecure/plain/S3+x.y-z://bucket/a.jpg", source: "S3+x.y-z://bucket/a.jpg",
              options: ProcessingOptions()),
        // (`3d:/` is read as a scheme whose `//` a proxy merged, as imgproxy's handlers/path.go reads it)
        Valid(path: "/insecure/plain/3d:/a.jpg", baseURL: baseURL, source: "http://images.example/3d://a.jpg",
              options: ProcessingOptions()),
        Valid(path: "/insecure/plain/a_b://c.jpg", baseURL: baseURL, source: "http://images.example/a_b://c.jpg",
              options: ProcessingOptions()),
    ]

    @Test(arguments: valid)
    func parsesValidPath(_ valid: Valid) throws {
        let parser = RequestPathParser(verifier: SignatureVerifier.insecure, baseURL: valid.baseURL,
                                       policy: Renderer.encodePolicy)

        let request = try parser.parse(rawPath: valid.path)

        #expect(request.sourceURL == valid.source)
        #expect(request.options == valid.options)
    }

    struct Invalid: Sendable, CustomTestStringConvertible {
        let path: String
        /// What the message must name: the option and its argument, or the problem.
        let names: String
        var testDescription: String { path }
    }

    static let invalid: [Invalid] = [
        Invalid(path: "/insecure/zz:1/plain/http://h/a.jpg", names: "unknown option zz"),
        Invalid(path: "/insecure/w:abc/plain/http://h/a.jpg", names: #"invalid w argument "abc""#),
        Invalid(path: "/insecure/w:-1/plain/http://h/a.jpg", names: #"invalid w argument "-1""#),
        Invalid(path: "/insecure/width:16385/plain/http://h/a.jpg", names: #"invalid width argument "16385""#),
        Invalid(path: "/insecure/rs:fit:16385/plain/http://h/a.jpg", names: #"invalid rs argument "16385""#),
        Invalid(path: "/insecure/q:101/plain/http://h/a.jpg", names: #"invalid q argument "101""#),
        Invalid(path: "/insecure/ssb:102/plain/http://h/a.jpg", names: #"invalid ssb argument "102""#),
        Invalid(path: "/insecure/rt:crop/plain/http://h/a.jpg", names: #"invalid rt resizing type "crop""#),
        Invalid(path: "/insecure/rs:stretch:300/plain/http://h/a.jpg", names: #"invalid rs resizing type "stretch""#),
        Invalid(path: "/insecure/g:north/plain/http://h/a.jpg", names: #"invalid g type "north""#),
        Invalid(path: "/insecure/g:no:x/plain/http://h/a.jpg", names: #"invalid g offset "x""#),
        Invalid(path: "/insecure/f:bmp/plain/http://h/a.jpg", names: #"invalid f format "bmp""#),
        Invalid(path: "/insecure/w:1:2/plain/http://h/a.jpg", names: "w takes 1 argument, got 2"),
        Invalid(path: "/insecure/rs:fit:1:2:0:0:ce:0:0:0/plain/http://h/a.jpg", names: "rs takes 1 to 8 arguments, got 9"),
        Invalid(path: "/insecure/s:1:2:0:0:ce:0:0:0/plain/http://h/a.jpg", names: "s takes 1 to 7 arguments, got 8"),
        Invalid(path: "/insecure/rs:fit:1:2:0:0:0/plain/http://h/a.jpg", names: #"invalid rs gravity type "0""#),
        Invalid(path: "/insecure/g:no:1:2:3/plain/http://h/a.jpg", names: "g takes 1 to 3 arguments, got 4"),
        Invalid(path: "/insecure/w:300", names: "missing source URL"),
        Invalid(path: "/insecure/w:300/", names: "missing source URL"),
        Invalid(path: "/insecure/plain/", names: "missing source URL"),
        Invalid(path: "/insecure/w:300/!!not-base64", names: "neither plain/... nor valid base64url"),
        Invalid(path: "/insecure/aHR0cDovL2g+YQ", names: "neither plain/... nor valid base64url"),
        Invalid(path: "/insecure/plain/http://h/a.jpg@bmp", names: #"invalid extension "bmp""#),
        Invalid(path: "/insecure/\(splitBase64).tiff", names: #"invalid extension "tiff""#),
        Invalid(path: "/insecure/plain/http://h/a%ZZ.jpg", names: "invalid percent-encoding"),
        Invalid(path: "/insecure/plain/images/a.jpg", names: "no scheme and no base URL"),
        Invalid(path: "/insecure/aW1hZ2VzL2EuanBn.png", names: "no scheme and no base URL"),
        Invalid(path: "/insecure/plain/a_b://c.jpg", names: "no scheme and no base URL"),
        Invalid(path: "/insecure/plain/3d:/a.jpg", names: "no scheme and no base URL"),
        Invalid(path: "insecure/w:300/plain/http://h/a.jpg", names: "path must start with /"),
        Invalid(path: "/insecure", names: "missing options and source"),
    ]

    @Test(arguments: invalid)
    func rejectsInvalidPathNamingTheProblem(_ invalid: Invalid) {
        let parser = RequestPathParser(verifier: SignatureVerifier.insecure, baseURL: nil, policy: Renderer.encodePolicy)

        let error = #expect(throws: RequestFailure.self) { try parser.parse(rawPath: invalid.path) }

        guard case .invalidURL(let message)? = error else {
            Issue.record("expected .invalidURL, got \(String(describing: error))")
            return
        }
        #expect(message.contains(invalid.names), "message: \(message)")
    }

    @Test(arguments: [
        ("/insecure/f:png/plain/http://h/a.jpg@webp", ImageFormat.webp),
        ("/insecure/f:png/\(splitBase64).jpg", .jpeg),
        ("/insecure/f:webp/plain/http://h/a.png@gif", .gif),
        ("/insecure/f:png/plain/http://h/a.jpg", .png),
    ])
    func sourceExtensionOverridesFormatOption(path: String, format: ImageFormat) throws {
        // imgproxy's rule: the extension at the end of the URL wins over an `f:` option before it.
        let parser = RequestPathParser(verifier: SignatureVerifier.insecure, baseURL: nil, policy: Renderer.encodePolicy)

        #expect(try parser.parse(rawPath: path).options.format == format)
    }

    @Test func smartGravityParses() throws {
        // The documented signature vector's path: g:sm is smart gravity, without offsets.
        let parser = RequestPathParser(verifier: SignatureVerifier.insecure, baseURL: nil, policy: Renderer.encodePolicy)

        let request = try parser.parse(rawPath: "/insecure/rs:fill:300:400:0/g:sm/\(Self.splitBase64).png")

        #expect(request.sourceURL == Self.curiosity)
        #expect(request.options == .with {
            $0.resizingType = .fill
            $0.width = 300
            $0.height = 400
            $0.gravity = Gravity(anchor: .smart)
            $0.format = .png
        })
    }

    @Test func gravityErrorListsEveryType() {
        let parser = RequestPathParser(verifier: SignatureVerifier.insecure, baseURL: nil, policy: Renderer.encodePolicy)

        #expect(throws: RequestFailure.invalidURL(
            "invalid g type \"north\": expected one of ce, no, so, ea, we, noea, nowe, soea, sowe, sm, fp")) {
            try parser.parse(rawPath: "/insecure/g:north/plain/http://h/a.jpg")
        }
    }

    /// Segments and fields split on bytes, as imgproxy's Go code splits them: a `:` that a
    /// combining mark follows is still a separator (as one Character it would not be), so the
    /// segment is an option with a bad argument, not the start of the source.
    @Test func separatorsAreBytesNotCharacters() throws {
        let parser = RequestPathParser(verifier: SignatureVerifier.insecure, baseURL: nil, policy: Renderer.encodePolicy)

        #expect(URLOption(segment: "w:\u{301}10") == URLOption(name: "w", arguments: ["\u{301}10"]))
        #expect(throws: RequestFailure.self) {
            try parser.parse(rawPath: "/insecure/w:\u{301}10/plain/http://h/a.jpg")
        }
        #expect(try parser.parse(rawPath: "/insecure/w:10/plain/http://h/a\u{301}/\u{301}b.jpg").sourceURL
            == "http://h/a\u{301}/\u{301}b.jpg")
    }
}
