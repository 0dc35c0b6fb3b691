/// Text read from disk or another process, made safe to print on an operator's terminal: a file
/// name may hold an escape sequence that retitles the window, moves the cursor or rewrites what
/// was printed before it. Control characters (C0, DEL, C1) and bytes that are not UTF-8 become
/// `\xNN` (`\u{NN}` for C1, which is two bytes in UTF-8), and `\` becomes `\\`, so every escape
/// printed is one of these.
public enum PrintableText {
    public static func escaping(_ text: String) -> String {
        escaping(bytes: text.utf8)
    }

    public static func escaping<Bytes: Collection<UInt8>>(bytes: Bytes) -> String {
        var parser = Unicode.UTF8.ForwardParser()
        var input = bytes.makeIterator()
        var position = bytes.startIndex
        var text = ""
        while true {
            switch parser.parseScalar(from: &input) {
            case .valid(let encoded):
                position = bytes.index(position, offsetBy: encoded.count)
                let scalar = Unicode.UTF8.decode(encoded)
                switch scalar.value {
                case 0x00..<0x20, 0x7F: text += hex(UInt8(scalar.value))
                case 0x80..<0xA0: text += "\\u{" + digits(UInt8(scalar.value)) + "}"
                case 0x5C: text += "\\\\"
                default: text.unicodeScalars.append(scalar)
                }
            case .error(let length):
                let end = bytes.index(position, offsetBy: length)
                for byte in bytes[position..<end] { text += hex(byte) }
                position = end
            case .emptyInput:
                return text
            }
        }
    }

    private static func hex(_ byte: UInt8) -> String { "\\x" + digits(byte) }

    private static func digits(_ byte: UInt8) -> String {
        (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
    }
}
