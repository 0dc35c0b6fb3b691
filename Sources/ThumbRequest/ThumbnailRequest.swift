/// A parsed, verified request for one thumbnail.
public struct ThumbnailRequest: Sendable, Hashable {
    public let sourceURL: String
    /// The options, with the format the URL's extension asks for already applied, or the one
    /// negotiated for the client.
    public let options: ProcessingOptions
    /// The format the URL itself names, before negotiation.
    public let formatInURL: ImageFormat?
    public let key: ThumbnailKey
    /// True when the format was picked from the client's Accept header, not from the URL.
    public let negotiated: Bool
    /// True when negotiation is on for this URL: the answer depends on Accept.
    public let variesByAccept: Bool
    /// The URL's signature once verified as its path's HMAC under a key; nil in insecure mode and
    /// for a trusted signature, which passes with any path. It names the file nginx serves (CachePath).
    public let signature: String?

    /// - Parameter policy: the renderer's, which the key writes what the bytes depend on of.
    public init(sourceURL: String, options: ProcessingOptions, signature: String? = nil, policy: any EncodePolicy) {
        self.init(sourceURL: sourceURL, options: options, formatInURL: options.format, signature: signature,
                  negotiated: false, variesByAccept: false, policy: policy)
    }

    private init(sourceURL: String, options: ProcessingOptions, formatInURL: ImageFormat?, signature: String?,
                 negotiated: Bool, variesByAccept: Bool, policy: any EncodePolicy) {
        self.sourceURL = sourceURL
        self.options = options
        self.formatInURL = formatInURL
        self.signature = signature
        self.negotiated = negotiated
        self.variesByAccept = variesByAccept
        key = ThumbnailKey(source: sourceURL, options: options, formatInURL: formatInURL, policy: policy)
    }

    /// The same request in the format the client accepts (WebP or AVIF), when negotiation picks
    /// one for this URL. `raw` answers the source as it is, for every client.
    public func negotiating(_ negotiation: FormatNegotiation, accept: String) -> ThumbnailRequest {
        guard !negotiated, !options.raw, negotiation.varies(formatInURL: formatInURL) else { return self }
        var options = options
        if options.bestFormat {
            // The client's class, as nginx's map tells it: a candidate beside the preferred formats.
            options.bestNegotiated = negotiation.format(for: accept, formatInURL: nil)
            return ThumbnailRequest(sourceURL: sourceURL, options: options, formatInURL: nil, signature: signature,
                                    negotiated: false, variesByAccept: true, policy: key.policy)
        }
        let format = negotiation.format(for: accept, formatInURL: formatInURL)
        options.format = format ?? formatInURL
        return ThumbnailRequest(sourceURL: sourceURL, options: options, formatInURL: formatInURL, signature: signature,
                                negotiated: format != nil, variesByAccept: true, policy: key.policy)
    }

    /// Whether a source in `sourceFormat` is answered with its own bytes: `raw`, or
    /// `skip_processing` for its format when the URL names that format or none. Decided on the
    /// URL's own format, before negotiation, as imgproxy decides it. nil: a format thumbd does not
    /// write, which only `raw` asks to pass through (and is refused).
    public func passesThrough(_ sourceFormat: ImageFormat?) -> Bool {
        options.raw || sourceFormat.map { options.skipProcessing.contains($0) && (formatInURL ?? $0) == $0 } ?? false
    }
}
