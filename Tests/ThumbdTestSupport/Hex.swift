extension Array where Element == UInt8 {
    /// Bytes from hex digits written in a test (keys and salts, file fixtures). Whitespace between
    /// them is skipped; anything else traps, so a typo cannot pass unnoticed.
    package init(hex: String) {
        let digits = hex.unicodeScalars.filter { !$0.properties.isWhitespace }.map { UInt8(String($0), radix: 16)! }
        precondition(digits.count % 2 == 0, "an odd number of hex digits")
        self = stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }
}
