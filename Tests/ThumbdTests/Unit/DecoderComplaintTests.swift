import CMagickWand
import Testing
@testable import ThumbImaging

/// Which complaints of a decoder that still returned pixels mean the file is broken.
@Suite(.timeLimit(.minutes(2)))
struct DecoderComplaintTests {
    /// (severity, ImageMagick's reason as recorded, broken). Every libjpeg warning arrives as a
    /// CorruptImageWarning, every libpng warning as a CoderWarning.
    static let complaints: [(ExceptionType, String, Bool)] = [
        (CorruptImageWarning, "Premature end of JPEG file `' @ warning/jpeg.c/JPEGWarningHandler/389", true),
        (CorruptImageWarning, "Corrupt JPEG data: bad Huffman code `' @ warning/jpeg.c/JPEGWarningHandler/389", true),
        (CorruptImageWarning, "Corrupt JPEG data: premature end of data segment", true),
        (CorruptImageWarning, "Corrupt JPEG data: found marker 0xd9 instead of RST3", true),
        (CorruptImageWarning, "Inconsistent progression sequence for component 0 coefficient 1", true),
        (CorruptImageWarning, "Corrupt JPEG data: 2 extraneous bytes before marker 0xd9", false),
        (CorruptImageWarning, "Warning: unknown JFIF revision number 3.01", false),
        (CorruptImageError, "invalid colormap index `' @ error/colormap-private.h/ConstrainColormapIndex/35", true),
        (CoderWarning, "tEXt: CRC error `' @ warning/png.c/MagickPNGWarningHandler/1671", true),
        (CoderWarning, "IDAT: Too much image data", false),
        (CoderWarning, "IDAT: Extra compressed data", false),
        (CoderWarning, "iCCP: known incorrect sRGB profile", false),
    ]

    @Test(arguments: complaints)
    func brokenOrMerelyIrregular(severity: ExceptionType, reason: String, broken: Bool) {
        #expect(DecoderComplaint(severity: severity, reason: reason).meansBrokenFile == broken)
    }

    @Test func theMessageIsTheDecodersWordsAlone() {
        let reason = "Corrupt JPEG data: bad Huffman code `' @ warning/jpeg.c/JPEGWarningHandler/389"
        let complaint = DecoderComplaint(severity: CorruptImageWarning, reason: reason)
        #expect(complaint.message == "Corrupt JPEG data: bad Huffman code")
    }
}
