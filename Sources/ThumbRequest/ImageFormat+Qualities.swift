import ThumbRuntime

/// Per-format qualities as imgproxy's FORMAT_QUALITY and AUTOQUALITY_FORMAT_MIN/MAX write them:
/// `jpeg=80,webp=79,avif=63`.
extension ImageFormat {
    /// Each lossy format's own default quality.
    public static var defaultQualities: [ImageFormat: Int] {
        Dictionary(uniqueKeysWithValues: allCases.filter(\.isLossy).map { ($0, $0.defaultQuality) })
    }

    public static func qualities(_ text: String) throws -> [ImageFormat: Int] {
        var qualities: [ImageFormat: Int] = [:]
        for entry in SettingText.list(text) {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let format = ImageFormat(extension: parts[0]), let quality = Int(parts[1]),
                  (1...100).contains(quality) else {
                throw InvalidSetting(
                    expected: "expected format=quality pairs such as jpeg=80,webp=79 (quality 1 to 100)")
            }
            qualities[format] = quality
        }
        return qualities
    }

    /// Lossy formats only, in their declared order.
    public static func qualityList(_ qualities: [ImageFormat: Int]) -> String {
        allCases.filter(\.isLossy).compactMap { format in qualities[format].map { "\(format.rawValue)=\($0)" } }
            .joined(separator: ",")
    }
}
