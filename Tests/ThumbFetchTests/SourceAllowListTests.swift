import Testing
@testable import ThumbFetch
@testable import ThumbRuntime

/// imgproxy's ALLOWED_SOURCES: URL prefixes, `*` within one part of the URL.
@Suite(.timeLimit(.minutes(2)))
struct SourceAllowListTests {
    static let list = SourceAllowList(prefixes: [
        "https://example.com/",
        "https://*.cdn.example.org/",
        "http://images.example.net/public/",
        "s3://bucket-*/",
    ])

    @Test(arguments: [
        // plain prefixes
        ("https://example.com/cat.jpg", true),
        ("https://example.com/", true),
        ("https://example.com/a/b/c.png?size=1", true),
        ("https://example.com.evil.com/cat.jpg", false),
        ("https://example.com@evil.com/cat.jpg", false),
        ("https://example.co/cat.jpg", false),
        ("http://example.com/cat.jpg", false),
        ("https://example.com", false),
        ("https://evil.com/https://example.com/", false),
        ("https://EXAMPLE.com/cat.jpg", false),
        ("http://images.example.net/public/a.jpg", true),
        ("http://images.example.net/private/a.jpg", false),
        ("http://images.example.net/publicity/a.jpg", false),
        // a star matches within one part only
        ("https://a.cdn.example.org/x.jpg", true),
        ("https://a.b.cdn.example.org/x.jpg", true),
        ("https://.cdn.example.org/x.jpg", true),
        ("https://cdn.example.org/x.jpg", false),
        ("https://evil.com/.cdn.example.org/x.jpg", false),
        ("https://evil.com/a.cdn.example.org/", false),
        ("https://a.cdn.example.org.evil.com/x.jpg", false),
        ("s3://bucket-photos/a.jpg", true),
        ("s3://bucket-/a.jpg", true),
        ("s3://bucket/a.jpg", false),
        // stricter than imgproxy: a star cannot swallow the end of the host
        ("https://evil.com?.cdn.example.org/x.jpg", false),
        ("https://evil.com#.cdn.example.org/x.jpg", false),
        ("https://evil.com@a.cdn.example.org/x.jpg", false),
        ("https://evil.com\\.cdn.example.org/x.jpg", false),
        // local files are sources like any other
        ("local:///photos/cat.jpg", false),
    ])
    func matchesPrefixes(_ url: String, _ expected: Bool) {
        #expect(Self.list.allows(url) == expected, "\(url)")
    }

    @Test func starStopsAtTheFirstSlash() {
        let list = SourceAllowList(prefixes: ["https://*/images/"])

        #expect(list.allows("https://anything.example/images/a.jpg"))
        #expect(!list.allows("https://anything.example/other/images/a.jpg"))
    }

    @Test func severalStarsAndAStarAtTheEnd() {
        let list = SourceAllowList(prefixes: ["https://img-*.*.example.com/*"])

        #expect(list.allows("https://img-1.eu.example.com/a.jpg"))
        #expect(list.allows("https://img-.x.example.com/"))
        #expect(!list.allows("https://img-1.example.com/a.jpg"))
        #expect(!list.allows("https://static-1.eu.example.com/a.jpg"))
    }

    @Test func starsStayLinearOnLongURLs() {
        // A pattern that makes a backtracking matcher try every split of a long host
        let list = SourceAllowList(prefixes: ["https://" + String(repeating: "*a", count: 30) + "b/"])
        let url = "https://" + String(repeating: "a", count: 5_000) + "/"

        #expect(!list.allows(url))
    }

    @Test func localFilesNeedAnEntryOfTheirOwn() {
        let list = SourceAllowList(prefixes: ["https://example.com/", "local:///photos/"])

        #expect(list.allows("local:///photos/cat.jpg"))
        #expect(!list.allows("local:///etc/passwd"))
        // prefixes are not paths: `..` is the local file reader's to refuse
        #expect(list.allows("local:///photos/../etc/passwd"))
    }

    @Test func emptyListAllowsEverything() {
        for list in [SourceAllowList(prefixes: []), SourceAllowList(prefixes: ["", ""])] {
            #expect(list.allowsEverything)
            #expect(list.allows("https://anything.example/a.jpg"))
            #expect(list.allows("local:///etc/passwd"))
            #expect(throws: Never.self) { try list.check("http://127.0.0.1/") }
        }
    }

    @Test func checkThrowsForbidden() {
        #expect(throws: FetchFailure.sourceNotAllowed("https://evil.com/a.jpg is not in the allowed sources")) {
            try Self.list.check("https://evil.com/a.jpg")
        }
        #expect(throws: Never.self) { try Self.list.check("https://example.com/a.jpg") }
        // The client learns only that the source is not allowed; the URL is for the log
        #expect(FetchFailure.sourceNotAllowed("detail").publicMessage == "forbidden: source is not allowed")
    }
}
