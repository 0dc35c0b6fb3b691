/// A parsed, verified request for one thumbnail.
public struct ThumbnailRequest: Sendable, Hashable {
    public let sourceURL: String
    /// The options, with the format the URL's extension asks for already applied.
    public let options: ProcessingOptions
    public let key: ThumbnailKey

    public init(sourceURL: String, options: ProcessingOptions) {
        self.sourceURL = sourceURL
        self.options = options
        key = ThumbnailKey(source: sourceURL, options: options)
    }
}
