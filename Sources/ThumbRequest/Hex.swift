/// Lower-case hex of bytes, for digests in names and logs (String(format:) costs a microsecond a byte).
package enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    package static func string<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
