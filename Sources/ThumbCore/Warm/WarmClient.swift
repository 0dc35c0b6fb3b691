import CCurl

/// Asks nginx for thumbnails, one at a time, over one libcurl handle that keeps its connection
/// alive between them. Not Sendable: it belongs to the thread that asks.
final class WarmClient {
    private let easy: CurlEasy
    private let server: String
    /// Polled by libcurl about once a second while a request waits: true gives it up.
    private let shouldAbandon: @Sendable () -> Bool

    /// - Parameter server: where nginx listens, e.g. `http://127.0.0.1:8080`; paths go after it.
    init(server: String, timeoutSeconds: Double, accept: String?,
         shouldAbandon: @escaping @Sendable () -> Bool) throws(ThumbError) {
        easy = try CurlEasy()
        self.server = server.hasSuffix("/") ? String(server.dropLast()) : server
        self.shouldAbandon = shouldAbandon
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        // The signature covers the path byte for byte: no dot segments removed.
        try easy.set(CURLOPT_PATH_AS_IS, 1)
        try easy.set(CURLOPT_NOSIGNAL, 1)
        try easy.set(CURLOPT_TIMEOUT_MS, Int(timeoutSeconds * 1000))
        try easy.set(CURLOPT_USERAGENT, "thumbd-warm/\(ThumbdVersion.current)")
        // URLs without a format are made per kind of client: the Accept says which kind.
        try easy.set(headers: accept.map { ["Accept: \($0)"] } ?? [])
        try easy.set(writeFunction: discardingWriteCallback)
        try easy.set(CURLOPT_NOPROGRESS, 0)
        try easy.set(progressFunction: abandoningProgressCallback)
        // The handle is this client's own, so it never outlives what the pointer points to.
        try easy.set(CURLOPT_XFERINFODATA, Unmanaged.passUnretained(self).toOpaque())
    }

    func ask(_ path: String) -> WarmResult {
        do throws(ThumbError) {
            try easy.set(CURLOPT_URL, server + path)
        } catch {
            return .unreachable("\(error)")
        }
        let code = easy.perform()
        switch code {
        case CURLE_OK: break
        case CURLE_ABORTED_BY_CALLBACK: return .abandoned
        default: return .unreachable(CurlEasy.describe(code))
        }
        let status = easy.responseCode
        guard (200..<300).contains(status) else { return .failed(status: status) }
        switch ServerTiming.mark(in: easy.headerValues(ServerTiming.name)) {
        case .miss: return .made
        case .fallback: return .fallback
        case .hit, nil: return .alreadyCached
        }
    }

    fileprivate var abandons: Bool { shouldAbandon() }
}

/// The thumbnail's bytes are not needed, only that it was answered.
private let discardingWriteCallback: curl_write_callback = { _, size, count, _ in size * count }

/// A non-zero answer makes libcurl give the request up.
private let abandoningProgressCallback: curl_xferinfo_callback = { clientp, _, _, _, _ in
    guard let clientp else { return 1 }
    return Unmanaged<WarmClient>.fromOpaque(clientp).takeUnretainedValue().abandons ? 1 : 0
}
