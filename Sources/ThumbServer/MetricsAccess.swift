/// Who may read `/_thumbd/metrics` through nginx: a client that shows METRICS_TOKEN as
/// `Authorization: Bearer <token>`. nginx's `allow` lines cannot tell a Prometheus on this host
/// from a reverse proxy on this host, whose every client arrives from 127.0.0.1; a token can. With
/// no token set, the path is refused (PROMETHEUS_BIND's listener is the other way in).
public struct MetricsAccess: Sendable {
    private let token: [UInt8]?

    public init(token: String?) {
        self.token = token.map { Array($0.utf8) }
    }

    /// nil when `authorization` (the request's Authorization header) shows the token; else the answer.
    func refusal(authorization: String) -> OutgoingResponse? {
        guard let token else {
            return .text(403, "metrics through nginx are off: set METRICS_TOKEN, or scrape PROMETHEUS_BIND")
        }
        let prefix = Array("Bearer ".utf8)
        let given = Array(authorization.utf8)
        guard given.starts(with: prefix), Self.same(Array(given.dropFirst(prefix.count)), token) else {
            return .text(401, "metrics need Authorization: Bearer <METRICS_TOKEN>",
                         headers: [("WWW-Authenticate", "Bearer")])
        }
        return nil
    }

    /// Compares every byte whatever the first difference, so that the time an answer takes does
    /// not tell how much of a guess was right.
    private static func same(_ given: [UInt8], _ token: [UInt8]) -> Bool {
        guard given.count == token.count else { return false }
        return zip(given, token).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
