/// What a reload may change about sources: which may be fetched (the first URL and every
/// redirect), and the extra headers sent to each.
public struct SourceRules: Sendable {
    public var allowedSources: SourceAllowList
    public var headers: SourceHeaders

    public init(allowedSources: SourceAllowList, headers: SourceHeaders) {
        self.allowedSources = allowedSources
        self.headers = headers
    }
}
