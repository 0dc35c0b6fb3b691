import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The readings settings share: numbers in a range, booleans as imgproxy spells them, lists,
/// paths, hex. Each throws `InvalidSetting` saying what was expected.
public enum SettingText {
    public static func integer(_ text: String, in range: ClosedRange<Int>, why: String? = nil) throws -> Int {
        guard let value = Int(text), range.contains(value) else {
            let expected = "expected a whole number from \(range.lowerBound) to \(range.upperBound)"
            throw InvalidSetting(expected: why.map { "\(expected): \($0)" } ?? expected)
        }
        return value
    }

    public static func decimal(_ text: String, in range: ClosedRange<Double>) throws -> Double {
        guard let value = Double(text), range.contains(value) else {
            throw InvalidSetting(expected: "expected a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    public static func bool(_ text: String) throws -> Bool {
        switch text.lowercased() {
        case "1", "t", "true", "yes": return true
        case "0", "f", "false", "no", "": return false
        default: throw InvalidSetting(expected: "expected true or false")
        }
    }

    /// Comma-separated items, trimmed, empty ones skipped (a trailing comma is harmless).
    public static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    public static func absolutePath(_ text: String) throws -> String {
        guard text.hasPrefix("/") else { throw InvalidSetting(expected: "expected an absolute path") }
        return text.count > 1 && text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    /// An existing directory, checked now so a typo fails the start rather than every request
    /// that needs it.
    public static func directory(_ text: String) throws -> String {
        let path = try absolutePath(text)
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw InvalidSetting(expected: "expected an existing directory: \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw InvalidSetting(expected: "expected a directory, not a file")
        }
        return path
    }

    /// Comma-separated hex strings, as imgproxy takes several keys or salts.
    public static func hexList(_ text: String) throws -> [[UInt8]] {
        var list: [[UInt8]] = []
        for item in text.split(separator: ",") {
            guard let bytes = hex(item.trimmingCharacters(in: .whitespaces)) else {
                throw InvalidSetting(expected: "expected hex, comma-separated for several")
            }
            list.append(bytes)
        }
        return list
    }

    private static func hex(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard !digits.isEmpty, digits.count.isMultiple(of: 2), text.allSatisfy(\.isHexDigit) else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            let pair = String(decoding: digits[index...index + 1], as: UTF8.self)
            guard let byte = UInt8(pair, radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}
