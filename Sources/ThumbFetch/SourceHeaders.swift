import Foundation

/// Extra request headers for sources under a URL prefix: an origin that wants a token, or a
/// Host of its own (the seeds' "fetch by URLRequest, not only URL"). Written as
/// `PREFIX Header: value`, entries separated by `|`.
public struct SourceHeaders: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public let prefix: String
        /// `Name: value`, as it goes on the wire.
        public let header: String
    }

    public let entries: [Entry]

    public init(entries: [Entry] = []) {
        self.entries = entries
    }

    /// nil when an entry is not `PREFIX Name: value` with an http(s) prefix that names its whole
    /// host (a `/` after it: `https://a.example` would also send the header to
    /// `https://a.example.evil.net/` and `https://a.example@evil.net/`) and a token name.
    public init?(_ text: String) {
        var entries: [Entry] = []
        for item in text.split(separator: "|") {
            let trimmed = item.trimmingCharacters(in: .whitespaces)
            guard let space = trimmed.firstIndex(of: " ") else { return nil }
            let prefix = String(trimmed[..<space])
            let header = trimmed[space...].trimmingCharacters(in: .whitespaces)
            guard let scheme = ["http://", "https://"].first(where: { prefix.hasPrefix($0) }),
                  prefix.dropFirst(scheme.count).contains("/"),
                  let colon = header.firstIndex(of: ":"), colon > header.startIndex,
                  header[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }),
                  !header.contains("\r"), !header.contains("\n") else { return nil }
            entries.append(Entry(prefix: prefix, header: header))
        }
        self.entries = entries
    }

    /// The headers for a source URL, in the order configured.
    public func headers(for url: String) -> [String] {
        entries.filter { url.hasPrefix($0.prefix) }.map(\.header)
    }
}
