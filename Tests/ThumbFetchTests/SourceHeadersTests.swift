import Testing
@testable import ThumbFetch

@Suite(.timeLimit(.minutes(2)))
struct SourceHeadersTests {
    @Test func entriesApplyToTheirPrefixOnly() throws {
        let headers = try #require(SourceHeaders("https://a.example/ X-Key: one two | http://b.example/img/ Host: cdn.example"))
        #expect(headers.headers(for: "https://a.example/cat.jpg") == ["X-Key: one two"])
        #expect(headers.headers(for: "http://b.example/img/cat.jpg") == ["Host: cdn.example"])
        #expect(headers.headers(for: "http://b.example/other.jpg").isEmpty)
        #expect(headers.headers(for: "https://a.example.evil/cat.jpg").isEmpty)
    }

    @Test(arguments: [
        "https://a.example/",                   // no header
        "ftp://a.example/ X-Key: v",             // not http(s)
        "https://a.example/ X Key: v",           // not a token name
        "https://a.example/ : v",                // no name
        "https://a.example/ X-Key v",            // no colon
        "https://a.example X-Key: v",            // host not ended: a.example.evil.net, a.example@evil.net
        "http://a.example:8080 X-Key: v",
    ])
    func malformedEntriesAreRejected(_ text: String) {
        #expect(SourceHeaders(text) == nil)
    }
}
