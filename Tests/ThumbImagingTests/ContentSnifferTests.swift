import Testing
@testable import ThumbImaging

/// Only the image formats thumbd serves get past the first bytes; everything else never
/// reaches a decoder.
@Suite(.timeLimit(.minutes(2)))
struct ContentSnifferTests {
    static func text(_ string: String) -> [UInt8] { Array(string.utf8) }

    @Test(arguments: [
        ("JPEG", [0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10] + text("JFIF"), SourceFormat.jpeg),
        ("JPEG, shortest", [0xff, 0xd8, 0xff], .jpeg),
        ("PNG", [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d] + text("IHDR"), .png),
        ("GIF87a", text("GIF87a") + [0x01, 0x00, 0x01, 0x00], .gif),
        ("GIF89a", text("GIF89a") + [0x01, 0x00, 0x01, 0x00], .gif),
        ("WebP", text("RIFF") + [0x24, 0x00, 0x00, 0x00] + text("WEBPVP8 "), .webp),
        ("AVIF", [0x00, 0x00, 0x00, 0x1c] + text("ftypavif") + [0x00, 0x00, 0x00, 0x00], .avif),
        ("AVIF sequence", [0x00, 0x00, 0x00, 0x20] + text("ftypavis"), .avif),
    ] as [(String, [UInt8], SourceFormat)])
    func recognisesImage(_ what: String, bytes: [UInt8], format: SourceFormat) {
        #expect(ContentSniffer.format(of: bytes) == format)
    }

    @Test(arguments: [
        ("HTML", text("<!DOCTYPE html><html><body>not an image</body></html>")),
        ("SVG", text("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"/>")),
        ("SVG with XML declaration", text("<?xml version=\"1.0\"?><svg/>")),
        ("MVG", text("push graphic-context\nviewbox 0 0 640 480\nimage over 0,0 0,0 'https://127.0.0.1/x'\n")),
        ("PostScript", text("%!PS-Adobe-3.0\n")),
        ("RIFF that is not WebP", text("RIFF") + [0x24, 0x00, 0x00, 0x00] + text("WAVEfmt ")),
        ("JPEG magic at the wrong offset", [0x00, 0xff, 0xd8, 0xff]),
        ("2 bytes of JPEG", [0xff, 0xd8]),
        ("GIF cut short", text("GIF89")),
        ("empty", []),
    ] as [(String, [UInt8])])
    func refusesEverythingElse(_ what: String, bytes: [UInt8]) {
        #expect(ContentSniffer.format(of: bytes) == nil)
    }
}
