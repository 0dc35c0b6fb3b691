import Testing
@testable import ThumbFetch
@testable import ThumbRequest
@testable import ThumbRuntime

/// A source that does not start with BASE_URL is put after it (imgproxy's options/url.go,
/// preprocessURL), and nothing in it may move the base's host.
@Suite(.timeLimit(.minutes(2)))
struct BaseURLTests {
    static func joined(_ source: String, to base: String) throws -> String {
        try SourceURL(segments: ["plain"] + source.split(separator: "/", omittingEmptySubsequences: false), baseURL: base).url
    }

    @Test(arguments: [
        // a base without a path gets its slash: the source's @ is then part of the path
        ("http://origin.example", "@evil.example/x.jpg", "http://origin.example/@evil.example/x.jpg"),
        ("https://user@origin.example:8443", "@evil.example/x.jpg", "https://user@origin.example:8443/@evil.example/x.jpg"),
        ("http://origin.example", ":80@evil.example/x.jpg", "http://origin.example/:80@evil.example/x.jpg"),
        ("http://origin.example", "images/cat.jpg", "http://origin.example/images/cat.jpg"),
        // a base with a path is joined as written (imgproxy's concatenation)
        ("http://origin.example/", "@evil.example/x.jpg", "http://origin.example/@evil.example/x.jpg"),
        ("http://origin.example/images/", "cat.jpg", "http://origin.example/images/cat.jpg"),
        ("http://origin.example/images", "@evil.example/x.jpg", "http://origin.example/images@evil.example/x.jpg"),
    ])
    func theSourceStaysOnTheBasesHost(base: String, source: String, expected: String) throws {
        let url = try Self.joined(source, to: base)

        #expect(url == expected)
        #expect(OriginFetcher.host(of: url) == OriginFetcher.host(of: base + "/"))
    }

    @Test(arguments: [
        // an absolute URL elsewhere is a path under the base, as in imgproxy
        ("http://origin.example/images/", "http://elsewhere.example/x.jpg",
         "http://origin.example/images/http://elsewhere.example/x.jpg"),
        ("http://origin.example/images/", "https://origin.example/other/x.jpg",
         "http://origin.example/images/https://origin.example/other/x.jpg"),
        // one that starts with the base is taken as it is
        ("http://origin.example/images/", "http://origin.example/images/x.jpg", "http://origin.example/images/x.jpg"),
        ("http://origin.example", "http://origin.example/x.jpg", "http://origin.example/x.jpg"),
        // a base without a path is taken with its slash: a longer host does not start with it
        ("http://origin.example", "http://origin.example.evil.example/x.jpg",
         "http://origin.example/http://origin.example.evil.example/x.jpg"),
        // local and S3 sources are paths under a web base
        ("http://origin.example/", "local:///etc/passwd", "http://origin.example/local:///etc/passwd"),
        ("http://origin.example/", "s3://bucket/key.jpg", "http://origin.example/s3://bucket/key.jpg"),
    ])
    func aSourceThatDoesNotStartWithTheBaseIsPutAfterIt(base: String, source: String, expected: String) throws {
        let url = try Self.joined(source, to: base)

        #expect(url == expected)
        #expect(OriginFetcher.host(of: url) == OriginFetcher.host(of: base + "/"))
    }

    @Test(arguments: [
        ("cat.jpg", "local:///images/cat.jpg"),
        ("local:///images/cat.jpg", "local:///images/cat.jpg"),
        ("local:///etc/passwd", "local:///images/local:///etc/passwd"),
        ("http://origin.example/x.jpg", "local:///images/http://origin.example/x.jpg"),
    ])
    func aLocalBaseKeepsEverySourceUnderItsDirectory(source: String, expected: String) throws {
        #expect(try Self.joined(source, to: "local:///images/") == expected)
    }

    @Test func withoutABaseAnAbsoluteSourceIsTakenAsItIsAndARelativeOneRefused() throws {
        let parse = { (source: String) throws(RequestFailure) in
            try SourceURL(segments: ["plain"] + source.split(separator: "/", omittingEmptySubsequences: false),
                          baseURL: nil).url
        }
        #expect(try parse("http://elsewhere.example/x.jpg") == "http://elsewhere.example/x.jpg")
        #expect(throws: RequestFailure.self) { try parse("x.jpg") }
    }
}
