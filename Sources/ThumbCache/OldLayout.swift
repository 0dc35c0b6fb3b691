import ThumbRequest

/// A file thumbd stored before the fan-out layout (CachePath), at the URI nginx passed, perhaps
/// followed by `.{ext}` or `.auto.{ext}`, or under `/_hashed/`. Nothing looks for those any more:
/// the start-up scan recognises them by their path, which still parses as a thumbnail's URL, and
/// removes them with their directories. Anything else it finds outside the layout is left alone.
public struct OldLayout: Sendable {
    private let parsers: [RequestPathParser]

    /// `parser` is the server's; a second one that takes any signature is tried after it.
    public init(parser: RequestPathParser) {
        parsers = [parser, RequestPathParser(verifier: SignatureVerifier.insecure, baseURL: parser.baseURL,
                                             options: parser.options, policy: parser.policy)]
    }

    /// Whether the file at `path` (relative to the cache root) is an old-layout thumbnail.
    public func stored(_ path: String) -> Bool {
        path.hasPrefix("/_hashed/") || identify(path) != nil
    }

    func identify(_ path: String) -> (keyHash: UInt64, sourceHash: UInt64)? {
        let candidates = Self.documentURIs(of: Self.restoringSchemeSlashes(path))
        for parser in parsers {
            for (uri, negotiated) in candidates {
                guard let parsed = try? parser.parse(rawPath: uri) else { continue }
                var options = parsed.options
                if let negotiated { options.format = negotiated }
                let request = ThumbnailRequest(sourceURL: parsed.sourceURL, options: options, policy: parser.policy)
                return (CacheIndex.keyHash(request.key), CacheIndex.sourceHash(request.sourceURL))
            }
        }
        return nil
    }

    /// The file system folds `plain/http://host` into `plain/http:/host`; the URL needs them back.
    static func restoringSchemeSlashes(_ path: String) -> String {
        var path = path
        for (folded, original) in [("/plain/http:/", "/plain/http://"), ("/plain/https:/", "/plain/https://"),
                                   ("/plain/local:/", "/plain/local:///")] where !path.contains(original) {
            path = path.replacing(folded, with: original)
        }
        return path
    }

    /// The URIs a stored path may have come from, most likely first, with the format negotiation
    /// picked, if any. Without a signature to tell, `.../a.jpg` is taken as itself, not as `.../a`
    /// made into a JPEG.
    static func documentURIs(of path: String) -> [(uri: String, negotiated: ImageFormat?)] {
        guard let dot = path.lastIndex(of: "."), let format = ImageFormat(extension: String(path[path.index(after: dot)...])) else {
            return [(path, nil)]
        }
        let stripped = String(path[..<dot])
        if stripped.hasSuffix(".auto.none") { return [(String(stripped.dropLast(10)), nil)] }
        let negotiated = stripped.hasSuffix(".auto") ? [(String(stripped.dropLast(5)), Optional(format))] : []
        return negotiated + [(path, nil), (stripped, nil)]
    }
}
