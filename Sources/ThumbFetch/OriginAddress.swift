import CCurl
#if canImport(Glibc)
import Glibc
#endif
import ThumbRuntime

/// Where a source's host is, decided by thumbd before anything connects: used when fetches go
/// through a proxy, whose own address is all the open-socket guard would see. The host is
/// resolved once, checked with the address policy, and the proxy is told that address, never
/// the name, so it cannot resolve the name to somewhere else.
struct OriginAddress {
    /// As the URL spells the host (lowercased, IPv6 in brackets), for CURLOPT_CONNECT_TO.
    let host: String
    let port: Int
    let address: IPAddress

    /// The first address of the URL's host the policy allows; 403 when it allows none.
    init(of url: String, policy: AddressPolicy) throws(FetchFailure) {
        (host, port) = try Self.hostAndPort(url)
        let name = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, nil, &hints, &list)
        guard status == 0, let list else {
            throw .originFailed("cannot resolve \(name): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var refused: IPAddress?
        for entry in sequence(first: list, next: { $0.pointee.ai_next }) {
            guard let found = IPAddress(sockaddr: entry.pointee.ai_addr, family: entry.pointee.ai_family) else { continue }
            if policy.allows(found) {
                address = found
                return
            }
            refused = refused ?? found
        }
        throw .sourceNotAllowed("\(name) resolves to \(refused.map(String.init(describing:)) ?? "nothing"), which is not allowed")
    }

    /// CURLOPT_CONNECT_TO's entry: the proxy is asked to connect to the checked address.
    var connectTo: String {
        switch address {
        case .v4: "\(host):\(port):\(address):\(port)"
        case .v6: "\(host):\(port):[\(address)]:\(port)"
        }
    }

    /// libcurl's own URL parser, so the host is the one curl will ask the proxy for.
    private static func hostAndPort(_ url: String) throws(FetchFailure) -> (String, Int) {
        guard let parsed = curl_url() else { throw .internalFailure("curl_url failed") }
        defer { curl_url_cleanup(parsed) }
        guard curl_url_set(parsed, CURLUPART_URL, url, 0) == CURLUE_OK else { throw .badRequest("invalid source URL") }
        var host: UnsafeMutablePointer<CChar>?
        var port: UnsafeMutablePointer<CChar>?
        guard curl_url_get(parsed, CURLUPART_HOST, &host, 0) == CURLUE_OK, let host,
              curl_url_get(parsed, CURLUPART_PORT, &port, UInt32(CURLU_DEFAULT_PORT)) == CURLUE_OK, let port
        else { throw .badRequest("invalid source URL") }
        defer { curl_free(host); curl_free(port) }
        return (String(cString: host).lowercased(), Int(String(cString: port)) ?? 0)
    }
}
