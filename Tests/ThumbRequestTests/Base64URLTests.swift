import Testing
@testable import ThumbRequest

/// base64url without padding (RFC 4648 §5), as imgproxy uses for sources and signatures.
@Suite(.timeLimit(.minutes(2)))
struct Base64URLTests {
    @Test(arguments: [
        [],
        [0x00],
        [0xfb, 0xff],
        [0xfb, 0xff, 0xbf],
        Array("http://example.com/images/curiosity.jpg".utf8),
        Array(0...255),
    ] as [[UInt8]])
    func roundTrips(_ bytes: [UInt8]) throws {
        let encoded = Base64URL.encode(bytes)

        #expect(!encoded.contains("+") && !encoded.contains("/") && !encoded.contains("="))
        #expect(Base64URL.decode(Substring(encoded)) == bytes)
    }

    @Test(arguments: [
        ([0xfb, 0xff, 0xbf], "-_-_"),
        ([0xfb, 0xff], "-_8"),
        (Array("any carnal pleas".utf8), "YW55IGNhcm5hbCBwbGVhcw"),
        (Array("http://example.com/images/curiosity.jpg".utf8), "aHR0cDovL2V4YW1wbGUuY29tL2ltYWdlcy9jdXJpb3NpdHkuanBn"),
    ] as [([UInt8], String)])
    func encodesWithTheURLAlphabetAndNoPadding(_ bytes: [UInt8], expected: String) {
        #expect(Base64URL.encode(bytes) == expected)
    }

    @Test(arguments: [
        ("-_8", [0xfb, 0xff]),
        ("-_8=", [0xfb, 0xff]),
        ("YW55IGNhcm5hbCBwbGVhcw", Array("any carnal pleas".utf8)),
        ("YW55IGNhcm5hbCBwbGVhcw==", Array("any carnal pleas".utf8)),
        ("", []),
    ] as [(String, [UInt8])])
    func decodesWithOrWithoutPadding(_ text: String, expected: [UInt8]) {
        #expect(Base64URL.decode(Substring(text)) == expected)
    }

    @Test(arguments: [
        "+_8",  // standard alphabet's 62
        "-/8",  // standard alphabet's 63
        "+/8=",  // standard base64 of the same bytes
        "YW55!GNh",
        "YW55 GNh",
        "YW55.GNh",
        "YW5=5IGNh",
        "Y",  // one character cannot encode a byte
    ])
    func rejectsCharactersOutsideTheAlphabet(_ text: String) {
        #expect(Base64URL.decode(Substring(text)) == nil)
    }
}
