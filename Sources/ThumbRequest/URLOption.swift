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
        let fields = Self.fields(of: segment)
        guard fields.count > 1 else { return nil }
        name = fields[0]
        arguments = Array(fields.dropFirst())
    }

    /// A segment's `:`-separated fields, split on bytes as imgproxy splits them.
    static func fields(of segment: Substring) -> [String] {
        segment.utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false).map { String(Substring($0)) }
    }

    public var description: String { ([name] + arguments).joined(separator: ":") }
}
