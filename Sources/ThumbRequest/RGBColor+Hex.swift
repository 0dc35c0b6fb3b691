extension RGBColor {
    /// `RRGGBB` or `RGB` hex digits, without `#`, as imgproxy's colour arguments are written.
    init?(hex: String) {
        let digits = hex.count == 3 ? hex.map { "\($0)\($0)" }.joined() : hex
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) else {
            return nil
        }
        self.init(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }

    /// Lower-case `rrggbb`, the spelling canonical keys use.
    var hex: String {
        let digits = Array("0123456789abcdef")
        return [red, green, blue].map { "\(digits[Int($0 >> 4)])\(digits[Int($0 & 0xF)])" }.joined()
    }
}
