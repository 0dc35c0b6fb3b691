import Testing
@testable import ThumbFetch
@testable import ThumbRequest

/// A source without a scheme is joined to BASE_URL, and nothing in it may move the base's host.
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
}
