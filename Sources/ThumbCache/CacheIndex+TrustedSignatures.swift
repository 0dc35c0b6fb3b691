import ThumbRuntime

/// A trusted signature (TRUSTED_SIGNATURES) passes with any path, so it names no file nginx
/// serves (CachePath). An older thumbd stored under it: whoever asked first with it had their
/// picture served, for a year, to every other URL that carried it. Those files go at start.
extension CacheIndex {
    /// Removes every file nginx would serve for a URL carrying one of `signatures`, with its index
    /// entry, and those the index does not count (a rebuilt index the scan has not filled yet).
    /// Called before the start-up scan, which would otherwise count them again.
    @discardableResult
    public func removeServedFiles(of signatures: [String]) throws(CacheFailure) -> (files: Int, bytes: UInt64) {
        let paths = Set(signatures.flatMap { CachePath.servedNames(signature: $0) }.map(\.relative))
        guard !paths.isEmpty else { return (0, 0) }
        var removed = try remove { paths.contains($0.path) }
        for path in paths.sorted() {
            guard let info = files.info(path), files.remove(path) else { continue }
            removed.files += 1
            removed.bytes &+= CacheFiles.allocatedBytes(info)
        }
        return removed
    }
}
