import Testing
@testable import ThumbRequest

/// The request path decoded as nginx decodes it into DOCUMENT_URI, or nil where nginx's form
/// cannot be matched safely.
@Suite(.timeLimit(.minutes(2)))
struct URIDecodingTests {
    @Test(arguments: [
        ("/insecure/w:300/plain/http://h/a.jpg", "/insecure/w:300/plain/http://h/a.jpg"),
        ("/a/b.jpg?w=300&x=%41", "/a/b.jpg"),
        ("/a?", "/a"),
        ("/a%20b", "/a b"),
        ("/%41%42%43", "/ABC"),
        ("/%4a%4B", "/JK"),
        ("/http%3A%2F%2Fh%2fa.jpg", "/http://h/a.jpg"),
        ("/caf%C3%A9", "/café"),
        ("/a%25b", "/a%b"),
        ("/a+b", "/a+b"),
        ("/a/..b/.c/b.", "/a/..b/.c/b."),  // dots inside a segment are a name
        ("", ""),
    ])
    func decodes(_ requestURI: String, expected: String) {
        #expect(URIDecoding.decodedPath(requestURI) == expected)
    }

    @Test(arguments: [
        "/a%G1",  // not hex
        "/a%1G",
        "/a%",  // escape cut short
        "/a%4",
        "/a%4?x=1",  // cut short by the query
        "/a%00b",  // NUL
        "/a%FF",  // not UTF-8
        "/a%C3",  // truncated UTF-8 sequence
        "/a%C0%AF",  // overlong encoding of /
        "/a/../b",  // dot segments, which nginx would have resolved
        "/a/%2e%2e/b",
        "/a/%2E./b",
        "/..",
        "/a/./b",
        "/a/%2e",
    ])
    func refuses(_ requestURI: String) {
        #expect(URIDecoding.decodedPath(requestURI) == nil)
    }
}
