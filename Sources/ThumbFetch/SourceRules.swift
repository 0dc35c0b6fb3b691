/// What a reload may change about sources: which may be fetched (the first URL and every
/// redirect), the addresses they may be fetched from, and the extra headers sent to each.
public struct SourceRules: Sendable {
    public var allowedSources: SourceAllowList
    public var headers: SourceHeaders
    public var addressPolicy: AddressPolicy

    public init(allowedSources: SourceAllowList, headers: SourceHeaders, addressPolicy: AddressPolicy) {
        self.allowedSources = allowedSources
        self.headers = headers
        self.addressPolicy = addressPolicy
    }

    /// The rules a fetcher's configuration starts with.
    public init(_ configuration: OriginFetcher.Configuration) {
        self.init(allowedSources: configuration.allowedSources, headers: configuration.extraHeaders,
                  addressPolicy: configuration.addressPolicy)
    }
}
