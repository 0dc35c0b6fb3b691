import Foundation
import ThumbRuntime

/// An image a setting gives (the watermark, the fallback), read once at start: a file that is
/// missing or not an image is a problem now, not a 500 on the first URL that needs it.
public enum SettingImage {
    public static func file(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InvalidSetting(expected: "expected a readable image file")
        }
        return try image([UInt8](data))
    }

    /// imgproxy's *_DATA: the image itself, in base64.
    public static func base64(_ text: String) throws -> [UInt8] {
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
            throw InvalidSetting(expected: "expected an image in base64")
        }
        return try image([UInt8](data))
    }

    /// What `--help` and the tests see of one: its format and size, not its bytes.
    public static func shown(_ bytes: [UInt8]) -> String {
        "\(ContentSniffer.format(of: bytes)?.rawValue ?? "image") of \(bytes.count) bytes"
    }

    private static func image(_ bytes: [UInt8]) throws -> [UInt8] {
        guard ContentSniffer.format(of: bytes) != nil else {
            throw InvalidSetting(expected: "expected a \(ContentSniffer.readableNames) image")
        }
        return bytes
    }
}
