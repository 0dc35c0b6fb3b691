import Testing
@testable import ThumbRuntime

/// What thumbd prints from disk reaches a terminal with no escape sequence of its own.
@Suite(.timeLimit(.minutes(1)))
struct PrintableTextTests {
    @Test(arguments: [
        ("plain name.jpg", "plain name.jpg"),
        ("café ☕.png", "café ☕.png"),
        ("\u{1B}]2;owned\u{07}", "\\x1b]2;owned\\x07"),
        ("tab\tnew\nline\r\u{7F}", "tab\\x09new\\x0aline\\x0d\\x7f"),
        ("\u{9B}31m", "\\u{9b}31m"),
        ("back\\slash", "back\\\\slash"),
    ])
    func controlCharactersAreEscaped(text: String, printed: String) {
        #expect(PrintableText.escaping(text) == printed)
    }

    @Test func bytesThatAreNotUTF8AreEscapedOneByOne() {
        // Given a lone continuation byte, a cut sequence and a byte UTF-8 never has, around good text
        let bytes: [UInt8] = [0x61, 0x80, 0x62, 0xE2, 0x98, 0x63, 0xFF] + Array("☕".utf8)

        // Then each bad byte is its own escape and the rest is kept
        #expect(PrintableText.escaping(bytes: bytes) == "a\\x80b\\xe2\\x98c\\xff☕")
    }
}
