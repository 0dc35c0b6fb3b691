import Testing
import ThumbImaging
import ThumbdTestSupport
@testable import ThumbRequest
@testable import ThumbOps

/// What `thumbd warm` asks for, from the lines it reads: signed as `thumbd sign` signs, and
/// read back by thumbd's own parser as the thumbnails meant.
@Suite(.timeLimit(.minutes(2)))
struct WarmTargetsTests {
    static let signing = SignatureVerifier(pairs: [ImgproxySigningExample.keyPair])

    static func targets(_ text: String, _ reading: WarmTargets.Reading = .thumbnails(signed: false),
                        signing: SignatureVerifier = signing) throws -> WarmTargets {
        try WarmTargets(lines: text, reading: reading, signing: signing)
    }

    // MARK: Thumbnails

    @Test func pathsAndURLsAreSignedWithTheKey() throws {
        // Given imgproxy's documented path, once as a path and once inside a whole URL
        let lines = "\(ImgproxySigningExample.path)\nhttps://thumbs.example.com/rs:fit:10:10/plain/http://h/a.jpg\n"

        // When read with the documented key and salt
        let targets = try Self.targets(lines)

        // Then the first carries imgproxy's documented signature, the second its own path signed
        #expect(targets.paths == [
            "/\(ImgproxySigningExample.signature)\(ImgproxySigningExample.path)",
            Self.signing.signedPath("/rs:fit:10:10/plain/http://h/a.jpg"),
        ])
        #expect(targets.duplicates == 0)
    }

    @Test func withoutAKeyPathsAreMarkedInsecure() throws {
        let targets = try Self.targets("/w:100/plain/http://h/a.jpg", signing: SignatureVerifier.insecure)

        #expect(targets.paths == ["/insecure/w:100/plain/http://h/a.jpg"])
    }

    @Test func signedLinesAreAskedForAsTheyAre() throws {
        // Given an access log's path and a whole URL, each with its signature (a wrong one too)
        let lines = "/AAAA/w:100/plain/http://h/a.jpg\nhttp://thumbs.example.com/insecure/w:50/plain/http://h/a.jpg"

        // Then nothing is signed again: nginx and thumbd judge them
        #expect(try Self.targets(lines, .thumbnails(signed: true)).paths == [
            "/AAAA/w:100/plain/http://h/a.jpg", "/insecure/w:50/plain/http://h/a.jpg",
        ])
    }

    @Test func blankLinesCommentsAndDuplicatesAreSkippedInOrder() throws {
        // Given CRLF lines, indentation, a comment, a blank line, and one thumbnail listed twice
        // (once as a URL)
        let lines = "# warm these\r\n  /w:2/plain/http://h/b.jpg\r\n\r\n/w:1/plain/http://h/a.jpg\r\n"
            + "http://thumbs/w:2/plain/http://h/b.jpg\r\n/w:3/plain/http://h/c.jpg"

        // When read
        let targets = try Self.targets(lines)

        // Then each path is asked for once, in the order first given
        #expect(targets.paths == ["/w:2/plain/http://h/b.jpg", "/w:1/plain/http://h/a.jpg", "/w:3/plain/http://h/c.jpg"]
            .map(Self.signing.signedPath))
        #expect(targets.duplicates == 1)
    }

    @Test func everyLineThatIsNeitherURLNorPathIsNamedAtOnce() {
        // Given a good line between a relative path, an ftp URL and a line with a space inside
        let lines = "w:100/plain/http://h/a.jpg\n/w:1/plain/http://h/a.jpg\nftp://h/x\n/w:1/plain/http://h/a b.jpg"

        // When read
        let error = #expect(throws: WarmTargets.Invalid.self) { try Self.targets(lines) }

        // Then all three are named by their line numbers
        #expect(error?.messages == [
            #"line 1: "w:100/plain/http://h/a.jpg" is neither an http(s) URL nor a path starting with /"#,
            #"line 3: "ftp://h/x" is neither an http(s) URL nor a path starting with /"#,
            #"line 4: "/w:1/plain/http://h/a b.jpg" has white space in it"#,
        ])
    }

    // MARK: Sources crossed with presets

    @Test func eachSourceIsAskedForOncePerPresetOneSourceAfterAnother() throws {
        // When two sources are crossed with two presets
        let targets = try Self.targets("http://h/a.jpg\nhttp://h/b.jpg",
                                       .sources(presets: ["thumb", "large"], format: .webp, onlyPresets: false))

        // Then a source's presets come together (thumbd fetches it once for both)
        #expect(targets.paths == [
            "/pr:thumb/plain/http://h/a.jpg@webp", "/pr:large/plain/http://h/a.jpg@webp",
            "/pr:thumb/plain/http://h/b.jpg@webp", "/pr:large/plain/http://h/b.jpg@webp",
        ].map(Self.signing.signedPath))
    }

    @Test func presetsOnlyURLsNameThePresetAlone() throws {
        let targets = try Self.targets("http://h/a.jpg", .sources(presets: ["thumb:sharp"], format: nil, onlyPresets: true))

        #expect(targets.paths == [Self.signing.signedPath("/thumb:sharp/plain/http://h/a.jpg")])
    }

    @Test(arguments: [
        "http://h/a.jpg",
        "https://h/photos/a%20b.jpg?size=large&v=2#top",
        "http://user@h/a@2x.png",
        "http://h/café.jpg",
    ])
    func thumbdReadsBackTheSourceAndThePreset(_ source: String) throws {
        // Given thumbd's parser with the key and a preset
        let presets = try Presets(parsing: "thumb=rs:fill:120:80")
        let parser = RequestPathParser(verifier: Self.signing, baseURL: nil, options: OptionParser(presets: presets),
                                       policy: Renderer.encodePolicy)

        // When the source is crossed with the preset, in WebP
        let path = try #require(try Self.targets(source, .sources(presets: ["thumb"], format: .webp, onlyPresets: false))
            .paths.first)
        let request = try parser.parse(rawPath: path)

        // Then the signature holds, and thumbd fetches exactly that source with the preset's options
        #expect(request.sourceURL == source)
        #expect(request.options.resizingType == .fill)
        #expect((request.options.width, request.options.height) == (120, 80))
        #expect(request.options.format == .webp)
    }

    @Test func aPresetNameThatCannotStandInAURLIsNamed() {
        let error = #expect(throws: WarmTargets.Invalid.self) {
            try Self.targets("http://h/a.jpg", .sources(presets: ["thumb", "a/b", ""], format: nil, onlyPresets: false))
        }

        #expect(error?.messages == [#"preset "a/b" is not a preset name"#, #"preset "" is not a preset name"#])
    }
}
