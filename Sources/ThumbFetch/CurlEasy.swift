import CCurl
import ThumbRuntime

/// Owns one libcurl easy handle. Not Sendable: a handle belongs to the thread that uses it.
package final class CurlEasy {
    let handle: UnsafeMutableRawPointer
    /// The lists list options (CURLOPT_HTTPHEADER, CURLOPT_CONNECT_TO) point to, by option; curl
    /// reads them during the transfer, so each lives until it is replaced or the handle goes.
    private var lists: [UInt32: UnsafeMutablePointer<curl_slist>] = [:]

    package init() throws(FetchFailure) {
        guard let handle = curl_easy_init() else { throw .internalFailure("curl_easy_init failed") }
        self.handle = handle
    }

    deinit {
        curl_easy_cleanup(handle)
        lists.values.forEach { curl_slist_free_all($0) }
    }

    package func set(_ option: CURLoption, _ value: Int) throws(FetchFailure) {
        try check(ccurl_setopt_long(handle, option, value), option)
    }

    package func set(_ option: CURLoption, _ value: String) throws(FetchFailure) {
        try check(ccurl_setopt_string(handle, option, value), option)
    }

    package func set(_ option: CURLoption, _ value: UnsafeMutableRawPointer?) throws(FetchFailure) {
        try check(ccurl_setopt_pointer(handle, option, value), option)
    }

    package func set(writeFunction: curl_write_callback) throws(FetchFailure) {
        try check(ccurl_setopt_write(handle, writeFunction), CURLOPT_WRITEFUNCTION)
    }

    func set(openSocketFunction: curl_opensocket_callback) throws(FetchFailure) {
        try check(ccurl_setopt_opensocket(handle, openSocketFunction), CURLOPT_OPENSOCKETFUNCTION)
    }

    package func set(progressFunction: curl_xferinfo_callback) throws(FetchFailure) {
        try check(ccurl_setopt_xferinfo(handle, progressFunction), CURLOPT_XFERINFOFUNCTION)
    }

    package func set(headers: [String]) throws(FetchFailure) {
        try set(CURLOPT_HTTPHEADER, list: headers)
    }

    func set(_ option: CURLoption, list entries: [String]) throws(FetchFailure) {
        var list: UnsafeMutablePointer<curl_slist>?
        for entry in entries {
            list = curl_slist_append(list, entry)
        }
        try set(option, UnsafeMutableRawPointer(list))
        curl_slist_free_all(lists[option.rawValue])
        lists[option.rawValue] = list
    }

    /// Forgets every option but keeps the connection cache, so the next transfer to the same
    /// origin reuses a kept-alive connection.
    func reset() { curl_easy_reset(handle) }

    /// Runs the transfer; the caller maps the result code, since only it knows the context.
    package func perform() -> CURLcode { curl_easy_perform(handle) }

    package var responseCode: Int {
        var code = 0
        _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    var contentType: String? { string(CURLINFO_CONTENT_TYPE) }

    /// The body's length as the response's headers declare it; nil when they do not.
    var declaredLength: Int? {
        var length: curl_off_t = -1
        guard ccurl_getinfo_off(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) == CURLE_OK, length >= 0 else { return nil }
        return Int(length)
    }

    /// Where a 3xx answer points, resolved against the URL asked for.
    var redirectURL: String? { string(CURLINFO_REDIRECT_URL) }

    /// Every field of the last response with this name, in order.
    package func headerValues(_ name: String) -> [String] {
        var values: [String] = []
        var header: UnsafeMutablePointer<curl_header>?
        while curl_easy_header(handle, name, values.count, UInt32(CURLH_HEADER), -1, &header) == CURLHE_OK, let header {
            values.append(String(cString: header.pointee.value))
            if values.count >= header.pointee.amount { break }
        }
        return values
    }

    private func string(_ info: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard ccurl_getinfo_string(handle, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    package static func describe(_ code: CURLcode) -> String { String(cString: curl_easy_strerror(code)) }

    private func check(_ code: CURLcode, _ option: CURLoption) throws(FetchFailure) {
        guard code == CURLE_OK else {
            throw .internalFailure("curl option \(option.rawValue): \(Self.describe(code))")
        }
    }
}
