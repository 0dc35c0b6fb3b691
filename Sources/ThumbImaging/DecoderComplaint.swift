import CMagickWand

/// Something a decoder recorded while reading a file it still returned pixels for. libjpeg
/// reports corrupt or missing data only as warnings and fills the gaps with grey; libpng lets
/// some errors through as warnings; ImageMagick notes a colour index the palette lacks as an
/// error on the image it returns. A thumbnail of such a file would be cached for good.
struct DecoderComplaint: Equatable {
    let severity: ExceptionType
    /// The decoder's words, without ImageMagick's note of the file and the line that raised them.
    let message: String

    init(severity: ExceptionType, reason: String) {
        self.severity = severity
        message = reason.components(separatedBy: " `").first ?? reason
    }

    /// Whether the file is broken: an error, though pixels came back (a half-read); a corrupt
    /// image warning (every libjpeg warning is one) other than the notes on bytes outside the
    /// picture; a checksum that failed in any chunk (the bytes were damaged, and not only there).
    /// libpng's other warnings (data past the last row, an sRGB profile it knows to be off) leave
    /// the picture whole: browsers show it, and so does thumbd.
    var meansBrokenFile: Bool {
        if severity.rawValue >= ErrorException.rawValue { return true }
        if severity == CorruptImageWarning { return !Self.outsideThePicture.contains { message.contains($0) } }
        return message.contains("CRC error")
    }

    /// libjpeg's notes on what lies outside the compressed picture: padding between segments,
    /// which it skips, and a JFIF version it does not know. Cameras and editors write both.
    private static let outsideThePicture = ["extraneous bytes before marker", "unknown JFIF revision"]
}
