import ThumbRequest

/// Where a request's thumbnail lives in the cache: the cache's view of a request.
extension ThumbnailRequest {
    /// Where the thumbnail for this URL is stored, in `format`. A negotiated request answered in
    /// another format than the negotiated one got the source itself (`skip_processing`), which is
    /// the same for every client: it has the name every client's lookup ends at.
    public func cachePath(documentURI: String, format: ImageFormat) -> CachePath {
        let naming = naming == .negotiated && format != options.format ? .shared : naming
        return CachePath(signature: signature, documentURI: documentURI, format: format, naming: naming)
    }

    /// How the thumbnail's file is named in the cache.
    public var naming: CachePath.Naming {
        // nginx would send neither the download name nor stop serving at the expiry time.
        if options.needsDisposition || options.expiresAt != nil { return .thumbdOnly }
        if options.bestFormat {
            return .best(class: variesByAccept ? options.bestNegotiated?.rawValue ?? "none" : nil)
        }
        if negotiated { return .negotiated }
        return variesByAccept ? .suffixed : .shared
    }
}
