import CCurl
import ThumbRuntime

/// GETs URLs one at a time over one libcurl handle that keeps its connection alive between
/// them, discarding the bodies: for tools that only need to know how each was answered. Not
/// Sendable: it belongs to the thread that asks.
package final class KeepAliveClient {
    package struct Answer {
        package let status: Int
        /// The values of the one header the caller asked to keep.
        package let headerValues: [String]
    }

    package enum Failure: Error {
        /// `shouldAbandon` said to give the request up.
        case abandoned
        case unreachable(String)
    }

    private let easy: CurlEasy
    /// Polled by libcurl about once a second while a request waits: true gives it up.
    private let shouldAbandon: @Sendable () -> Bool

    package init(timeoutSeconds: Double, userAgent: String, headers: [String],
                 shouldAbandon: @escaping @Sendable () -> Bool) throws(FetchFailure) {
        easy = try CurlEasy()
        self.shouldAbandon = shouldAbandon
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        // A signature covers the path byte for byte: no dot segments removed.
        try easy.set(CURLOPT_PATH_AS_IS, 1)
        try easy.set(CURLOPT_NOSIGNAL, 1)
        try easy.set(CURLOPT_TIMEOUT_MS, Int(timeoutSeconds * 1000))
        try easy.set(CURLOPT_USERAGENT, userAgent)
        try easy.set(headers: headers)
        try easy.set(writeFunction: discardingWriteCallback)
        try easy.set(CURLOPT_NOPROGRESS, 0)
        try easy.set(progressFunction: abandoningProgressCallback)
        // The handle is this client's own, so it never outlives what the pointer points to.
        try easy.set(CURLOPT_XFERINFODATA, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The answer to a GET of `url`, keeping the values of the header `keeping`.
    package func get(_ url: String, keeping header: String) -> Result<Answer, Failure> {
        do throws(FetchFailure) {
            try easy.set(CURLOPT_URL, url)
        } catch {
            return .failure(.unreachable("\(error)"))
        }
        let code = easy.perform()
        switch code {
        case CURLE_OK: return .success(Answer(status: easy.responseCode, headerValues: easy.headerValues(header)))
        case CURLE_ABORTED_BY_CALLBACK: return .failure(.abandoned)
        default: return .failure(.unreachable(CurlEasy.describe(code)))
        }
    }

    fileprivate var abandons: Bool { shouldAbandon() }
}

/// The bodies are not needed, only how each URL was answered.
private let discardingWriteCallback: curl_write_callback = { _, size, count, _ in size * count }

/// A non-zero answer makes libcurl give the request up.
private let abandoningProgressCallback: curl_xferinfo_callback = { clientp, _, _, _, _ in
    guard let clientp else { return 1 }
    return Unmanaged<KeepAliveClient>.fromOpaque(clientp).takeUnretainedValue().abandons ? 1 : 0
}
