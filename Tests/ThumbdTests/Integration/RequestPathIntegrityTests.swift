import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbRequest

/// thumbd parses the path as the client sent it and stores the answer at the path nginx decoded
/// from it, which any client can ask for: a path whose two forms ask for different thumbnails,
/// whose bytes are not UTF-8, or whose signature covers other bytes, is refused before anything is
/// fetched or stored. And no configuration turns signatures off but insecure mode named as such.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct RequestPathIntegrityTests {
    static let key = ["THUMBD_KEY": "736563726574", "THUMBD_SALT": "68656C6C6F"]
    static let signer = SignatureVerifier(pairs: [.init(key: Array("secret".utf8), salt: Array("hello".utf8))])

    /// `/{signature}`, over `path`'s bytes as they are.
    static func signature(of path: [UInt8]) -> [UInt8] {
        Array("/\(signer.signature(for: path, with: signer.pairs[0]))".utf8)
    }

    static func signed(_ path: [UInt8]) -> [UInt8] { signature(of: path) + path }

    @Test func aWatermarkOptionHiddenInAnEscapedSlashIsRefusedInEveryMode() throws {
        // Given a white photo, a blue watermark configured, and a path whose cachebuster hides
        // `/wm:1:ce` behind escapes: nginx decodes it to a path that asks for the watermark
        let white = TestImages.draw("xc:white", width: 200, height: 100, format: .jpeg)
        let mark = NSTemporaryDirectory() + "thumbd-mark-\(UUID().uuidString).png"
        try Data(TestImages.draw("xc:blue", width: 60, height: 40, format: .png)).write(to: URL(fileURLWithPath: mark))
        defer { try? FileManager.default.removeItem(atPath: mark) }

        for environment in [[:], Self.key] {
            let origin = try TestOrigin()
            origin.serve("/photo.jpg", .image(white))
            let rest = "/rs:fit:100:50/plain/\(origin.url("/photo.jpg"))@png"
            let stack = try TestStack(environment: environment.merging(["THUMBD_WATERMARK_PATH": mark]) { $1 })
            defer { stack.shutdown() }
            // (`%3a`: an escaped `%3A` is a colon before anything reads the path, as in imgproxy)
            let smuggled = Array("/cb:1%2Fwm%3a1%3ace\(rest)".utf8)
            let asStored = Array("/cb:1/wm:1:ce\(rest)".utf8)
            let sign = environment.isEmpty ? { Array("/insecure".utf8) + $0 } : Self.signed

            // When the escaped path is asked for, signed where there is a key
            let refused = try stack.get(rawPath: sign(smuggled))

            // Then it is refused before any fetch, and nothing is stored
            #expect(refused.status == 400, "\(environment): \(refused.text)")
            #expect(refused.text.contains("percent-decoded"), "\(refused.text)")
            #expect(stack.cacheFiles().isEmpty)
            #expect(origin.totalRequests == 0)
            // and the decoded path, asked for itself, is the watermarked thumbnail it names
            if environment.isEmpty {
                let decoded = try stack.get(rawPath: sign(asStored))
                #expect(decoded.status == 200)
                #expect(RenderGoldenTests.looks(try ImageProbe(decoded.body), at: (50, 25), like: "blue", tolerance: 10))
            }
        }
    }

    /// imgproxy handlers/path_test.go TestParsePath (PathWithOptionsSeparatorUnescapingPLain,
    /// PathWithPlainUrlRedenormalization): escaped colons in the options and `http:/` for `http://`.
    @Test func aPathAProxyRewroteIsTheThumbnailItWasSignedFor() throws {
        // Given a photo, and a URL as built and as a proxy passes it on
        let origin = try TestOrigin()
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 64, height: 48)))
        let source = origin.url("/photo.jpg")
        let built = "/rs:fill:32:16/plain/\(source)@png"
        let sent = "/rs%3Afill%3A32%3A16/plain/\(source.replacingOccurrences(of: "http://", with: "http:/"))@png"
        let asStored = "/rs:fill:32:16/plain/\(source.replacingOccurrences(of: "http://", with: "http:/"))@png"

        for environment in [[:], Self.key] {
            let stack = try TestStack(environment: environment)
            defer { stack.shutdown() }
            let signature = environment.isEmpty ? Array("/insecure".utf8) : Self.signature(of: Array(built.utf8))
            let fetches = origin.totalRequests

            // When the rewritten spelling is asked for
            let rewritten = try stack.get(rawPath: signature + Array(sent.utf8))

            // Then it is the thumbnail the URL names as built, stored once
            #expect(rewritten.status == 200, "\(environment): \(rewritten.text)")
            let probe = try ImageProbe(rewritten.body)
            #expect((probe.format, probe.width, probe.height) == ("PNG", 32, 16))
            let stored = stack.cacheFiles()
            #expect(stored.count == 1)
            // and the path nginx stored it at, asked for itself, is that file, fetched once
            let decoded = try stack.get(rawPath: signature + Array(asStored.utf8))
            #expect(decoded.status == 200)
            #expect(decoded.body == rewritten.body)
            #expect(stack.cacheFiles() == stored)
            #expect(origin.totalRequests == fetches + 1)
            if !environment.isEmpty {
                // and the URL as built is served the same file by its signature, while the
                // spelling signed as sent is not a signature of anything thumbd renders
                let asBuilt = try stack.get(rawPath: signature + Array(built.utf8))
                #expect(asBuilt.body == rewritten.body)
                #expect(try stack.get(rawPath: Self.signed(Array(sent.utf8))).status == 403)
                #expect(stack.cacheFiles() == stored)
                #expect(origin.totalRequests == fetches + 1)
            }
        }
    }

    /// imgproxy options/parser/processing_options_test.go TestParsePlainURLEscaped: a plain source
    /// escaped as a whole, also with escapes of its own (`encodeURIComponent` of the URL a page
    /// has, which imgproxy unescapes once and fetches); and one with a space and UTF-8, which
    /// libcurl is given escaped again. Each is then a static file nginx serves.
    @Test func aPlainSourceIsFetchedEscapedHoweverTheURLSpellsIt() throws {
        // Given a photo whose name has a space and an é, as the origin's request line spells it
        let origin = try TestOrigin()
        origin.serve("/caf%C3%A9%201.jpg", .image(TestImages.jpeg(width: 64, height: 48)))
        let stack = try TestStack(environment: Self.key)
        defer { stack.shutdown() }
        let source = origin.url("/caf\u{E9} 1.jpg")
        let wholeEscaped = source.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let escapedAgain = origin.url("/caf%C3%A9%201.jpg").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let spellings: [[UInt8]] = [
            Array("/w:32/plain/\(wholeEscaped)@png".utf8),
            Array("/w:32/plain/\(escapedAgain)@png".utf8),
            Array("/w:32/plain/\(origin.url("/caf%C3%A9%201.jpg"))@png".utf8),
            Array("/w:32/plain/\(origin.url("/caf\u{E9}%201.jpg"))@png".utf8),
        ]

        var made: [[UInt8]] = []
        for spelling in spellings {
            // When the spelling is asked for, signed as it is
            let response = try stack.get(rawPath: Self.signed(spelling))

            // Then the origin was asked for the photo, escaped, and the thumbnail is made
            #expect(response.status == 200, "\(String(decoding: spelling, as: UTF8.self)): \(response.text)")
            #expect(try ImageProbe(response.body).width == 32)
            made.append(response.body)
        }
        // and only ever by the escaped name, each spelling stored under its own signature
        #expect(origin.requestCount("/caf%C3%A9%201.jpg") > 0)
        #expect(origin.totalRequests == origin.requestCount("/caf%C3%A9%201.jpg"))
        #expect(stack.cacheFiles().count == spellings.count)
        // and nginx serves each spelling's file with thumbd gone
        stack.stopThumbd()
        for (spelling, body) in zip(spellings, made) {
            let hit = try stack.get(rawPath: Self.signed(spelling))
            #expect(hit.status == 200 && hit.body == body, "\(String(decoding: spelling, as: UTF8.self))")
        }
    }

    @Test func anEscapedExtensionMarkerIsRefused() throws {
        // Given a source that exists under both names
        let origin = try TestOrigin()
        for path in ["/photo.jpg", "/photo.jpg@png"] { origin.serve(path, .image(TestImages.jpeg(width: 64, height: 48))) }
        let stack = try TestStack()
        defer { stack.shutdown() }

        // When the @ before the extension is escaped (stored where `photo.jpg@png` is served)
        let response = try stack.get("/insecure/w:32/plain/\(origin.url("/photo.jpg"))%40png")

        // Then it is refused and nothing is fetched or stored
        #expect(response.status == 400, "\(response.text)")
        #expect(stack.cacheFiles().isEmpty)
        #expect(origin.totalRequests == 0)
    }

    @Test func theSignatureCoversTheRawBytesAndBytesThatAreNotUTF8AreRefused() throws {
        // Given thumbd with a key, and a cachebuster holding U+FFFD (EF BF BD in UTF-8)
        let origin = try TestOrigin()
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 64, height: 48)))
        let stack = try TestStack(environment: Self.key)
        defer { stack.shutdown() }
        let (before, after) = (Array("/cb:".utf8), Array("/w:32/plain/\(origin.url("/photo.jpg"))@png".utf8))
        let replacement = before + [0xEF, 0xBF, 0xBD] + after
        let invalid = before + [0xFF] + after

        // When a byte that is not UTF-8 is sent under the signature of U+FFFD, which is what a
        // decoder turns it into
        let forged = try stack.get(rawPath: Self.signature(of: replacement) + invalid)

        // Then the signature does not verify: it covers the bytes sent
        #expect(forged.status == 403, "\(forged.text)")
        // and the same bytes signed as they are verify, but are refused as not UTF-8
        let notUTF8 = try stack.get(rawPath: Self.signed(invalid))
        #expect(notUTF8.status == 400, "\(notUTF8.text)")
        #expect(notUTF8.text.contains("not UTF-8"), "\(notUTF8.text)")
        #expect(try stack.get(rawPath: Self.signed(replacement)).status == 200)
        #expect(stack.cacheFiles().count == 1)
        #expect(origin.totalRequests == 1)
    }

    @Test(arguments: [
        ("an empty key and salt", ["THUMBD_KEY": "", "THUMBD_SALT": ""], "no KEY and SALT"),
        ("a 4-byte signature", key.merging(["THUMBD_SIGNATURE_SIZE": "4"]) { $1 }, "THUMBD_SIGNATURE_SIZE=\"4\""),
        ("insecure mode with a key", key.merging(["THUMBD_INSECURE": "true"]) { $1 }, "not both"),
    ])
    func thumbdDoesNotStartWithoutRealSignatures(_ what: String, environment: [String: String], says: String) throws {
        // When thumbd is started so
        let error = #expect(throws: StackError.self, "\(what)") { try TestStack(environment: environment) }

        // Then it does not start, and says why
        #expect(error?.description.contains(says) == true, "\(what): \(error?.description ?? "started")")
    }
}
