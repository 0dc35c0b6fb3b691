/// PNG's compressed text chunks (zTXt, and iTXt when compressed) are decompressed whole by
/// libpng while ImageMagick reads even the header: 256 KiB of zTXt that inflate to 256 MiB held
/// a render for 11 s. Thumbnails drop text metadata anyway, so such chunks are cut out before
/// any decoding; plain tEXt, whose size is what the file holds, stays.
enum PNGCompressedText {
    private static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The file without its compressed text chunks; nil when it has none, or is not a PNG whose
    /// chunks parse to IEND (the decoder then sees the original and reports what is wrong).
    static func stripped(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.starts(with: signature) else { return nil }
        var kept: [Range<Int>] = [0..<signature.count]
        var offset = signature.count
        var dropped = false
        while offset + 12 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let end = offset + 12 + length
            guard length <= bytes.count, end <= bytes.count else { return nil }
            let type = bytes[offset + 4..<offset + 8]
            if isCompressedText(type: type, data: bytes[offset + 8..<offset + 8 + length]) {
                dropped = true
            } else {
                kept.append(offset..<end)
            }
            if type.elementsEqual("IEND".utf8) {
                return dropped ? kept.flatMap { bytes[$0] } : nil
            }
            offset = end
        }
        return nil
    }

    private static func isCompressedText(type: ArraySlice<UInt8>, data: ArraySlice<UInt8>) -> Bool {
        if type.elementsEqual("zTXt".utf8) { return true }
        // iTXt: keyword, NUL, then the compression flag.
        guard type.elementsEqual("iTXt".utf8), let keywordEnd = data.firstIndex(of: 0) else { return false }
        return keywordEnd + 1 < data.endIndex && data[keywordEnd + 1] != 0
    }
}
