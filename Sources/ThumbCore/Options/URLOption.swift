/// One `name:arg1:arg2...` segment of a URL or of a preset, split at the colons.
public struct URLOption: Sendable, Hashable, CustomStringConvertible {
    public let name: String
    public let arguments: [String]

    public init(name: String, arguments: [String]) {
        self.name = name
        self.arguments = arguments
    }

    /// nil when the segment has no colon: by imgproxy's rule such a segment is not an option but
    /// the first segment of the source.
    public init?(segment: Substring) {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count > 1 else { return nil }
        name = String(parts[0])
        arguments = parts.dropFirst().map(String.init)
    }

    public var description: String { ([name] + arguments).joined(separator: ":") }
}
