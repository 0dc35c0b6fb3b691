/// Turns the raw request path `/{signature}/{option}/.../{source}` into a verified
/// `ThumbnailRequest`. The signature covers the path exactly as the client sent it.
public struct RequestPathParser: Sendable {
    public let verifier: SignatureVerifier
    public let baseURL: String?

    public init(verifier: SignatureVerifier, baseURL: String?) {
        self.verifier = verifier
        self.baseURL = baseURL
    }

    public func parse(rawPath: String) throws(ThumbError) -> ThumbnailRequest {
        let path = rawPath.prefix { $0 != "?" }
        guard path.hasPrefix("/") else { throw .badRequest("path must start with /") }
        let afterSlash = path.dropFirst()
        guard let slash = afterSlash.firstIndex(of: "/") else { throw .badRequest("missing options and source") }
        let signature = afterSlash[..<slash]
        let signedPath = afterSlash[slash...]
        try verifier.verify(signature: signature, path: signedPath)

        let segments = signedPath.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        var options = ProcessingOptions()
        // imgproxy's rule: options are the leading segments with a colon; the source begins after.
        let sourceStart = segments.firstIndex { !$0.contains(":") } ?? segments.endIndex
        for segment in segments[..<sourceStart] {
            try options.apply(option: segment)
        }
        let source = try SourceURL(segments: segments[sourceStart...], baseURL: baseURL)
        if let format = source.format { options.format = format }
        return ThumbnailRequest(sourceURL: source.url, options: options)
    }
}
