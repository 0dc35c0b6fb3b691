import Testing
@testable import ThumbCore

/// Two URLs that spell one thumbnail differently share a key (and so one job); any difference
/// in what is produced gives another key.
struct ThumbnailKeyTests {
    static let plain = "plain/http://example.com/images/curiosity.jpg"
    static let base64 = "aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn"

    static func key(_ path: String) throws -> ThumbnailKey {
        try RequestPathParser(verifier: SignatureVerifier(pairs: []), baseURL: nil).parse(rawPath: path).key
    }

    @Test(arguments: [
        ("plain or base64 source",
         "/insecure/rs:fill:300:200/\(plain)@png", "/insecure/rs:fill:300:200/\(base64).png"),
        ("long or short option names",
         "/insecure/resize:fill:300:200/gravity:no/quality:70/format:webp/\(plain)",
         "/insecure/rs:fill:300:200/g:no/q:70/f:webp/\(plain)"),
        ("options in another order",
         "/insecure/w:300/h:200/rt:fill/g:so/\(plain)", "/insecure/g:so/rt:fill/h:200/w:300/\(plain)"),
        ("one option or several",
         "/insecure/rs:fill:300:200:1/\(plain)", "/insecure/rt:fill/w:300/h:200/el:1/\(plain)"),
        ("q:0 or WebP's default quality", "/insecure/q:0/f:webp/\(plain)", "/insecure/q:79/f:webp/\(plain)"),
        ("no quality or JPEG's default", "/insecure/\(plain)@jpg", "/insecure/q:80/\(plain)@jpg"),
        ("q:0 or AVIF's default quality", "/insecure/q:0/\(base64).avif", "/insecure/q:63/\(base64).avif"),
        ("jpg or jpeg", "/insecure/f:jpg/\(plain)", "/insecure/ext:jpeg/\(plain)"),
        ("f: option or extension", "/insecure/f:png/\(plain)", "/insecure/\(plain)@png"),
        ("default gravity or g:ce", "/insecure/rs:fill:30:20/\(plain)", "/insecure/rs:fill:30:20/g:ce/\(plain)"),
        ("no offsets or zero offsets",
         "/insecure/rs:fill:30:20/g:no/\(plain)", "/insecure/rs:fill:30:20/g:no:0:0/\(plain)"),
        ("different signatures", "/insecure/w:300/\(plain)", "/c2lnbmF0dXJl/w:300/\(plain)"),
        ("with a query string", "/insecure/w:300/\(plain)", "/insecure/w:300/\(plain)?v=2"),
    ])
    func sameThumbnailHasOneKey(_ what: String, _ first: String, _ second: String) throws {
        let a = try Self.key(first)
        let b = try Self.key(second)

        #expect(a == b, "\(what): \(a.canonical) vs \(b.canonical)")
        #expect(a.digest == b.digest)
    }

    @Test(arguments: [
        ("width", "/insecure/rs:fill:300:200/\(plain)", "/insecure/rs:fill:301:200/\(plain)"),
        ("height", "/insecure/rs:fill:300:200/\(plain)", "/insecure/rs:fill:300:201/\(plain)"),
        ("resizing type", "/insecure/rs:fill:300:200/\(plain)", "/insecure/rs:fit:300:200/\(plain)"),
        ("enlarge", "/insecure/rs:fill:300:200/\(plain)", "/insecure/rs:fill:300:200:1/\(plain)"),
        ("gravity", "/insecure/rs:fill:300:200/g:no/\(plain)", "/insecure/rs:fill:300:200/g:so/\(plain)"),
        ("gravity offset",
         "/insecure/rs:fill:300:200/g:no:0:5/\(plain)", "/insecure/rs:fill:300:200/g:no:0:6/\(plain)"),
        ("quality", "/insecure/q:70/\(plain)@webp", "/insecure/q:71/\(plain)@webp"),
        ("format", "/insecure/w:300/\(plain)@webp", "/insecure/w:300/\(plain)@png"),
        ("explicit format or the source's", "/insecure/w:300/\(plain)@jpg", "/insecure/w:300/\(plain)"),
        ("source", "/insecure/w:300/plain/http://example.com/a.jpg", "/insecure/w:300/plain/http://example.com/b.jpg"),
        ("source query", "/insecure/w:300/plain/http://h/a.jpg%3Fv=1", "/insecure/w:300/plain/http://h/a.jpg%3Fv=2"),
    ])
    func anyDifferenceGivesAnotherKey(_ what: String, _ first: String, _ second: String) throws {
        let a = try Self.key(first)
        let b = try Self.key(second)

        #expect(a != b, "\(what): both \(a.canonical)")
        #expect(a.digest != b.digest)
    }

    @Test func digestIsShortStableHex() throws {
        let key = try Self.key("/insecure/rs:fill:300:200/\(Self.plain)@png")

        #expect(key.digest.count == 32)
        #expect(key.digest.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(key.digest == (try Self.key("/insecure/rs:fill:300:200/\(Self.plain)@png")).digest)
        #expect(key.description == key.digest)
    }
}
