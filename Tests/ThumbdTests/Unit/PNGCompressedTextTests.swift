import Testing
@testable import ThumbImaging

/// Compressed text chunks are cut out of PNG sources before decoding; everything else stays.
@Suite(.timeLimit(.minutes(2)))
struct PNGCompressedTextTests {
    static let png = TestImages.draw("xc:teal", width: 4, height: 3, format: .png)

    /// `png` with `chunks` after its IHDR (8 bytes of signature, 25 of IHDR).
    static func inserting(_ chunks: [[UInt8]], into png: [UInt8] = png) -> [UInt8] {
        Array(png[..<33]) + chunks.flatMap { $0 } + Array(png[33...])
    }

    static let zTXt = PNGChunks.chunk("zTXt", Array("Comment".utf8) + [0, 0, 0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
    static let compressedITXt = PNGChunks.chunk("iTXt", Array("Comment".utf8) + [0, 1, 0] + [0, 0] + [0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
    static let plainITXt = PNGChunks.chunk("iTXt", Array("Comment".utf8) + [0, 0, 0] + [0, 0] + Array("hello".utf8))
    static let tEXt = PNGChunks.chunk("tEXt", Array("Copyright".utf8) + [0] + Array("Someone".utf8))

    @Test func compressedTextIsCutOutAndTheRestKeptInOrder() {
        let source = Self.inserting([Self.tEXt, Self.zTXt, Self.plainITXt, Self.compressedITXt])

        #expect(PNGCompressedText.stripped(source) == Self.inserting([Self.tEXt, Self.plainITXt]))
    }

    @Test func aPNGWithoutCompressedTextIsLeftAlone() {
        #expect(PNGCompressedText.stripped(Self.png) == nil)
        #expect(PNGCompressedText.stripped(Self.inserting([Self.tEXt, Self.plainITXt])) == nil)
    }

    @Test func aFileThatDoesNotParseToItsEndIsLeftToTheDecoder() {
        let source = Self.inserting([Self.zTXt])
        #expect(PNGCompressedText.stripped(Array(source.dropLast(12))) == nil)  // no IEND
        #expect(PNGCompressedText.stripped(Array(source.prefix(40))) == nil)
        #expect(PNGCompressedText.stripped(TestImages.jpeg(width: 4, height: 4)) == nil)
    }
}
