/// Turns the raw request path `/{signature}/{option}/.../{source}` into a verified
/// `ThumbnailRequest`. The signature covers the path exactly as the client sent it.
public struct RequestPathParser: Sendable {
    public let verifier: SignatureVerifier
    public let baseURL: String?
    public let options: OptionParser

    public init(verifier: SignatureVerifier, baseURL: String?, options: OptionParser = OptionParser()) {
        self.verifier = verifier
        self.baseURL = baseURL
        self.options = options
    }

    /// What the server's parser takes from the configuration: signing, base URL, presets,
    /// presets-only mode and security options.
    public init(configuration: Configuration) {
        self.init(verifier: configuration.signing, baseURL: configuration.baseURL, options: configuration.options)
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
        var processing = try options.initialOptions()
        let sourceStart: Int
        if options.onlyPresets {
            // imgproxy's presets-only URLs: `/{signature}/{preset}:{preset}/{source}`.
            guard let first = segments.first else { throw .badRequest("missing presets and source") }
            try options.applyPresets(first.split(separator: ":", omittingEmptySubsequences: false).map(String.init),
                                     to: &processing)
            sourceStart = 1
        } else {
            // imgproxy's rule: options are the leading segments with a colon; the source begins after.
            sourceStart = segments.firstIndex { !$0.contains(":") } ?? segments.endIndex
            for segment in segments[..<sourceStart] {
                guard let option = URLOption(segment: segment) else { continue }
                try options.apply(option, to: &processing)
            }
        }
        let source = try SourceURL(segments: segments[sourceStart...], baseURL: baseURL)
        if let format = source.format { processing.format = format }
        return ThumbnailRequest(sourceURL: source.url, options: processing)
    }
}
