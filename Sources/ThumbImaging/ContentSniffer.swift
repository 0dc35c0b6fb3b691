/// Recognises an image by its first bytes, before ImageMagick sees anything: a source that is
/// not one of these formats (HTML, SVG, MVG, PostScript, ...) never reaches a decoder.
public enum ContentSniffer {
    public static let readableNames = "JPEG, PNG, GIF, WebP, AVIF, HEIC, TIFF or BMP"

    public static func format(of bytes: [UInt8]) -> SourceFormat? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && bytes[offset..<offset + prefix.count].elementsEqual(prefix)
        }
        if starts([0xff, 0xd8, 0xff]) { return .jpeg }
        if starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts(Array("ftypavif".utf8), at: 4) || starts(Array("ftypavis".utf8), at: 4) { return .avif }
        if ["heic", "heix", "hevc", "hevx", "mif1", "msf1"].contains(where: { starts(Array("ftyp\($0)".utf8), at: 4) }) {
            return .heic
        }
        if starts([0x49, 0x49, 0x2a, 0x00]) || starts([0x4d, 0x4d, 0x00, 0x2a]) { return .tiff }
        // "BM", then a header size BMP uses (40, 108 or 124 bytes, or the old 12) at offset 14.
        if starts(Array("BM".utf8)), bytes.count > 18, [12, 40, 56, 108, 124].contains(Int(bytes[14])), bytes[15] == 0 {
            return .bmp
        }
        return nil
    }

    /// Why bytes that `format(of:)` does not know are refused, said after their name ("source"):
    /// a JPEG XL by name, since thumbd writes the format but has no decoder for it under its limits.
    public static func refusal(of bytes: [UInt8]) -> String {
        let codestream: [UInt8] = [0xff, 0x0a]
        let container: [UInt8] = [0x00, 0x00, 0x00, 0x0c, 0x4a, 0x58, 0x4c, 0x20, 0x0d, 0x0a, 0x87, 0x0a]
        if bytes.starts(with: codestream) || bytes.starts(with: container) {
            return "is a JPEG XL image, which thumbd writes but does not read"
        }
        return "is not a \(readableNames) image"
    }
}
