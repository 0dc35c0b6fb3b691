import Testing
@testable import ThumbRequest

/// A plain source is decoded when the URL is parsed; what libcurl is given is escaped again.
@Suite(.timeLimit(.minutes(2)))
struct URLEscapingTests {
    @Test(arguments: [
        ("http://h/a b.jpg", "http://h/a%20b.jpg"),
        ("http://h/caf\u{E9}.jpg?q=\u{E9} t", "http://h/caf%C3%A9.jpg?q=%C3%A9%20t"),
        ("http://h/a\"<>\\^`{|}.jpg", "http://h/a%22%3C%3E%5C%5E%60%7B%7C%7D.jpg"),
        ("http://h/tab\there", "http://h/tab%09here"),
        // a UTF-8 host is curl's to turn into punycode
        ("http://b\u{FC}cher.example/a b.jpg", "http://b\u{FC}cher.example/a%20b.jpg"),
    ])
    func escapesWhatNoRequestLineMayCarry(_ url: String, escaped: String) {
        #expect(URLEscaping.escaped(url) == escaped)
        #expect(URLEscaping.escaped(escaped) == escaped)
    }

    @Test(arguments: [
        "http://h/a%20b.jpg?x=%2F&y=1#top",
        "https://user:pw@h:8080/a(1)!*';:@&=+$,/b.jpg",
        "http://h/100%.jpg",
    ])
    func leavesAWellFormedURLAsItIs(_ url: String) {
        #expect(URLEscaping.escaped(url) == url)
    }
}
