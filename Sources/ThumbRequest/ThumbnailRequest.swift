/// A parsed, verified request for one thumbnail.
public struct ThumbnailRequest: Sendable, Hashable {
    public let sourceURL: String
    /// The options, with the format the URL's extension asks for already applied.
    public let options: ProcessingOptions
    public let key: ThumbnailKey
    /// True when the format was picked from the client's Accept header, not from the URL.
    public let negotiated: Bool
    /// True when the URL names no format and negotiation is on: the answer depends on Accept.
    public let variesByAccept: Bool
    /// The URL's signature once verified against a key; nil in insecure mode. It names the file
    /// nginx serves (CachePath).
    public let signature: String?

    public init(sourceURL: String, options: ProcessingOptions, signature: String? = nil, negotiated: Bool = false,
                variesByAccept: Bool = false) {
        self.sourceURL = sourceURL
        self.options = options
        self.signature = signature
        self.negotiated = negotiated
        self.variesByAccept = variesByAccept
        key = ThumbnailKey(source: sourceURL, options: options)
    }

    /// The same request in the format the client accepts (WebP or AVIF), when the URL names no
    /// format and negotiation picks one.
    public func negotiating(_ negotiation: FormatNegotiation, accept: String) -> ThumbnailRequest {
        guard options.format == nil, negotiation.isEnabled else { return self }
        guard let format = negotiation.format(for: accept) else {
            return ThumbnailRequest(sourceURL: sourceURL, options: options, signature: signature, variesByAccept: true)
        }
        var options = options
        options.format = format
        return ThumbnailRequest(sourceURL: sourceURL, options: options, signature: signature, negotiated: true,
                                variesByAccept: true)
    }

}
