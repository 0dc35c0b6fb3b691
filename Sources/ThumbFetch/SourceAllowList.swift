import ThumbRuntime

/// The sources an operator allows, as URL prefixes (imgproxy's IMGPROXY_ALLOWED_SOURCES), so a
/// signed-URL leak or an unsigned setup cannot make thumbd a proxy for any image on the web.
///
/// An entry matches a URL that starts with it, byte for byte and case-sensitively (as imgproxy's
/// anchored regular expressions do; a URL spelt in capitals is refused, never wrongly allowed).
/// `*` in an entry matches any run of characters within one part of the URL:
/// `https://*.example.com/` allows every subdomain, and a star cannot reach across a `/` into the
/// path. End a host entry with `/`: `https://example.com` also allows `https://example.com.evil.net/`.
///
/// Stricter than imgproxy: a star also stops at `?`, `#`, `@` and `\`, so it cannot swallow the
/// real host in `https://evil.net?.example.com/`, `https://evil.net#.example.com/` (whose host is
/// evil.net) or move the host after a userinfo.
///
/// `local://` sources are URLs like any other: an operator who lists only `https://` prefixes has
/// not allowed local files. The empty list allows every source, as in imgproxy.
public struct SourceAllowList: Sendable, Hashable {
    public let prefixes: [String]
    private let patterns: [[Token]]

    private enum Token: Sendable, Hashable {
        case byte(UInt8)
        case star
    }

    /// Characters a star does not match: each one ends the part of the URL the star stands in.
    private static let starStops: Set<UInt8> = Set("/?#@\\".utf8)

    /// Empty entries are ignored: an empty prefix would allow everything, which only the empty list
    /// should mean.
    public init(prefixes: [String]) {
        self.prefixes = prefixes.filter { !$0.isEmpty }
        patterns = self.prefixes.map { prefix in prefix.utf8.map { $0 == UInt8(ascii: "*") ? .star : .byte($0) } }
    }

    public var allowsEverything: Bool { prefixes.isEmpty }

    public func allows(_ url: String) -> Bool {
        guard !patterns.isEmpty else { return true }
        let bytes = Array(url.utf8)
        return patterns.contains { Self.matchesPrefix($0, of: bytes) }
    }

    public func check(_ url: String) throws(FetchFailure) {
        guard allows(url) else { throw .sourceNotAllowed("\(url) is not in the allowed sources") }
    }

    /// Runs the pattern as a set of positions (an NFA) over the URL once, so stars cost time linear
    /// in the URL's length, never the backtracking a regular expression engine may do.
    private static func matchesPrefix(_ pattern: [Token], of url: [UInt8]) -> Bool {
        var active = [Bool](repeating: false, count: pattern.count + 1)
        active[0] = true
        closeOverStars(&active, pattern)
        for byte in url {
            if active[pattern.count] { return true }
            var next = [Bool](repeating: false, count: pattern.count + 1)
            for position in pattern.indices where active[position] {
                switch pattern[position] {
                case .byte(let expected) where expected == byte: next[position + 1] = true
                case .star where !starStops.contains(byte): next[position] = true
                default: break
                }
            }
            active = next
            closeOverStars(&active, pattern)
        }
        return active[pattern.count]
    }

    /// A star may match nothing: wherever a star is reached, the token after it is reached too.
    private static func closeOverStars(_ active: inout [Bool], _ pattern: [Token]) {
        for position in pattern.indices where active[position] && pattern[position] == .star {
            active[position + 1] = true
        }
    }
}
