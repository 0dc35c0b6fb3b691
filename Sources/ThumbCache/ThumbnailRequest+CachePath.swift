import ThumbRequest

/// Where a request's thumbnail lives in the cache: the cache's view of a request.
extension ThumbnailRequest {
    /// Where the thumbnail for this URL is stored, in `format`.
    public func cachePath(documentURI: String, format: ImageFormat) -> CachePath {
        CachePath(signature: signature, documentURI: documentURI, format: format, naming: naming)
    }

    /// How the thumbnail's file is named in the cache.
    public var naming: CachePath.Naming {
        // nginx would send neither the download name nor stop serving at the expiry time.
        if options.needsDisposition || options.expiresAt != nil { return .thumbdOnly }
        if negotiated { return .negotiated }
        return variesByAccept ? .suffixed : .shared
    }
}
