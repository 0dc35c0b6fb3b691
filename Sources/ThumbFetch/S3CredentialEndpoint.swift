import CCurl
import ThumbRuntime

/// One GET of a credentials endpoint the process's environment names (the container endpoint),
/// on the calling thread. The endpoint is the operator's, so the source address policy does not
/// judge it; its answer is small and due within seconds.
enum S3CredentialEndpoint {
    static let byteLimit = 64 * 1024
    static let timeoutMilliseconds = 5_000

    static func get(_ url: String, headers: [String]) throws(FetchFailure) -> [UInt8] {
        let easy = try CurlEasy()
        let transfer = Transfer(easy: easy, byteLimit: byteLimit, policy: nil,
                                firstByteTimeoutMilliseconds: timeoutMilliseconds)
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        let code = try withExtendedLifetime(transfer) { () throws(FetchFailure) -> CURLcode in
            try easy.set(CURLOPT_URL, url)
            try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
            try easy.set(CURLOPT_PROXY, "")
            try easy.set(CURLOPT_NOSIGNAL, 1)
            try easy.set(CURLOPT_TIMEOUT_MS, timeoutMilliseconds)
            try easy.set(headers: headers)
            try easy.set(writeFunction: transferWriteCallback)
            try easy.set(CURLOPT_WRITEDATA, context)
            return easy.perform()
        }
        guard code == CURLE_OK else {
            throw .internalFailure("S3 credentials from \(url): \(CurlEasy.describe(code))")
        }
        guard easy.responseCode == 200 else {
            throw .internalFailure("S3 credentials from \(url): answered \(easy.responseCode)")
        }
        return transfer.body
    }
}
