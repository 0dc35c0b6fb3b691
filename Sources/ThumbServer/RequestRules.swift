import ThumbRequest

/// What a reload may change about reading request paths: the signing keys, presets and option
/// rules in the parser, with a memory of parses made under them (a path parsed under the old
/// keys is not a request under the new ones).
public struct RequestRules: Sendable {
    public let parser: RequestPathParser
    let parsedRequests = ParsedRequestCache()

    public init(parser: RequestPathParser) {
        self.parser = parser
    }
}
