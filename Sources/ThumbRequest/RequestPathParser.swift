import ThumbRuntime

/// Turns the raw request path `/{signature}/{option}/.../{source}` into a verified
/// `ThumbnailRequest`. The signature covers the path as the client sent it, once `PathRepair` has
/// undone what proxies do to paths (imgproxy's order: cut the query, split off the signature,
/// repair, verify, parse).
public struct RequestPathParser: Sendable {
    public let verifier: SignatureVerifier
    public let baseURL: String?
    public let options: OptionParser
    /// The renderer's, for the keys of the requests parsed.
    public let policy: any EncodePolicy

    public init(verifier: SignatureVerifier, baseURL: String?, options: OptionParser = OptionParser(),
                policy: any EncodePolicy) {
        self.verifier = verifier
        self.baseURL = baseURL
        self.options = options
        self.policy = policy
    }

    /// A path written as a String (the tools, tests): the signature covers its UTF-8 bytes.
    public func parse(rawPath: String) throws(RequestFailure) -> ThumbnailRequest {
        let path = Array(rawPath.utf8)[...].prefix { $0 != UInt8(ascii: "?") }
        let (signature, signedPath) = try Self.split(path)
        let repaired = PathRepair.repaired(signedPath)
        let verification = try verify(signature, repaired)
        return try parse(signedPath: String(decoding: repaired, as: UTF8.self),
                         signature: signatureNamingFiles(signature, verification))
    }

    /// REQUEST_URI as nginx passes it, the bytes the client sent. The signature is checked over
    /// those bytes. nginx stores the answer at the percent-decoded path, which is a URL too: so the
    /// path must be UTF-8 once decoded, and must ask for the same thumbnail decoded as raw (an
    /// escaped `/`, `:` or `@` would make the file at the decoded path something else). Both are
    /// read repaired: the decoded path, asked for itself, is repaired the same way. The same
    /// thumbnail means the same options and a source that goes on the wire as the same URL: a
    /// source escaped as a whole (`encodeURIComponent`, as imgproxy's docs ask) holds escapes of
    /// its own, which reading it decodes once either way and the fetch writes back.
    public func parse(requestURI: [UInt8]) throws(RequestFailure) -> ThumbnailRequest {
        let path = requestURI[...].prefix { $0 != UInt8(ascii: "?") }
        let (signature, signedPath) = try Self.split(path)
        let repaired = PathRepair.repaired(signedPath)
        let verification = try verify(signature, repaired)
        guard String(validating: path, as: UTF8.self) != nil, let decoded = URIDecoding.decodedPath(path) else {
            throw .badRequest("path is not UTF-8 once percent-decoded, or has a NUL or a dot segment")
        }
        let request = try parse(signedPath: String(decoding: repaired, as: UTF8.self),
                                signature: signatureNamingFiles(signature, verification))
        // Most paths have no escape: decoded, they are the same bytes, and parse the same.
        if decoded.utf8.elementsEqual(path) { return request }
        let decodedSignedPath = try? Self.split(Array(decoded.utf8)[...]).signedPath
        let asStored = decodedSignedPath.flatMap {
            try? parse(signedPath: String(decoding: PathRepair.repaired($0), as: UTF8.self), signature: request.signature)
        }
        guard let asStored, Self.fetchedAlike(asStored, request) else {
            throw .badRequest("path asks for something else once percent-decoded, as nginx stores it")
        }
        return request
    }

    private static func fetchedAlike(_ one: ThumbnailRequest, _ other: ThumbnailRequest) -> Bool {
        func onTheWire(_ request: ThumbnailRequest) -> ThumbnailRequest {
            ThumbnailRequest(sourceURL: URLEscaping.escaped(request.sourceURL), options: request.options,
                             signature: request.signature, policy: request.key.policy)
        }
        return onTheWire(one) == onTheWire(other)
    }

    /// Without a key any signature passes, but not a segment with a colon: that is an option, and
    /// the signature was left out (imgproxy's security/signature.go says so, with a 403).
    private func verify(_ signature: ArraySlice<UInt8>,
                        _ path: [UInt8]) throws(RequestFailure) -> SignatureVerifier.Verification {
        if verifier.acceptsAnySignature, signature.contains(UInt8(ascii: ":")) {
            throw .forbidden("the signature appears to be a processing option: a URL starts with its signature")
        }
        return try verifier.verify(signature: Array(signature), path: path)
    }

    /// The path without its signature, as a log line gives it: the signature is a credential for
    /// the path, and the path says what was asked.
    public static func withoutSignature(_ path: String) -> String {
        guard let parts = try? split(Array(path.utf8)[...]) else { return path }
        return String(decoding: parts.signedPath, as: UTF8.self)
    }

    /// The signature as the cache names files by it: only one that a key verified as this path's
    /// HMAC. A trusted one passes with any path, and insecure mode checks none: their thumbnails
    /// are stored privately.
    private func signatureNamingFiles(_ signature: ArraySlice<UInt8>,
                                      _ verification: SignatureVerifier.Verification) -> String? {
        verification == .hmac ? String(decoding: signature, as: UTF8.self) : nil
    }

    /// `/{signature}{signed path}`: the signed path keeps its leading slash.
    private static func split(_ path: ArraySlice<UInt8>) throws(RequestFailure) -> (signature: ArraySlice<UInt8>, signedPath: ArraySlice<UInt8>) {
        guard path.first == UInt8(ascii: "/") else { throw .invalidURL("path must start with /") }
        let afterSlash = path.dropFirst()
        guard let slash = afterSlash.firstIndex(of: UInt8(ascii: "/")) else { throw .invalidURL("missing options and source") }
        return (afterSlash[..<slash], afterSlash[slash...])
    }

    /// Options, then the source, after the signature (with its leading slash). Split on bytes, as
    /// imgproxy splits: a `/` or `:` followed by a combining mark still separates, and no grapheme
    /// needs finding on a path every miss parses.
    private func parse(signedPath: String, signature: String?) throws(RequestFailure) -> ThumbnailRequest {
        let segments = signedPath.utf8.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            .map(Substring.init)
        var processing = try options.initialOptions()
        let sourceStart: Int
        if options.onlyPresets {
            // imgproxy's presets-only URLs: `/{signature}/{preset}:{preset}/{source}`.
            guard let first = segments.first else { throw .invalidURL("missing presets and source") }
            try options.applyPresets(URLOption.fields(of: first), to: &processing)
            sourceStart = 1
        } else {
            // `/{signature}/fill/300/400/...`: imgproxy's old URL format, which it names when it refuses it.
            if let first = segments.first, ResizingType(rawValue: String(first)) != nil {
                throw .invalidURL("it looks like you're using the deprecated basic URL format")
            }
            // imgproxy's rule: options are the leading segments with a colon; the source begins after.
            sourceStart = segments.firstIndex { !$0.utf8.contains(UInt8(ascii: ":")) } ?? segments.endIndex
            for segment in segments[..<sourceStart] {
                guard let option = URLOption(segment: segment) else { continue }
                try options.apply(option, to: &processing)
            }
        }
        let source = try SourceURL(segments: segments[sourceStart...], baseURL: baseURL)
        if let format = source.format { (processing.format, processing.bestFormat) = (format, false) }
        if source.bestFormat { (processing.format, processing.bestFormat) = (nil, true) }
        return ThumbnailRequest(sourceURL: source.url, options: processing, signature: signature, policy: policy)
    }
}
