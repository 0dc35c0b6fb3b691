/// What a reload may change about sources: which may be fetched (the first URL and every
/// redirect), the addresses they may be fetched from, the extra headers sent to each, and how
/// S3 sources are read and signed (their credentials included).
public struct SourceRules: Sendable {
    public var allowedSources: SourceAllowList
    public var headers: SourceHeaders
    public var addressPolicy: AddressPolicy
    public var s3: S3Settings

    public init(allowedSources: SourceAllowList, headers: SourceHeaders, addressPolicy: AddressPolicy,
                s3: S3Settings = S3Settings()) {
        self.allowedSources = allowedSources
        self.headers = headers
        self.addressPolicy = addressPolicy
        self.s3 = s3
    }

    /// The rules a fetcher's configuration starts with.
    public init(_ configuration: OriginFetcher.Configuration) {
        self.init(allowedSources: configuration.allowedSources, headers: configuration.extraHeaders,
                  addressPolicy: configuration.addressPolicy, s3: configuration.s3)
    }
}
