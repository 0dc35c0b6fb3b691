import ThumbFetch
import ThumbRuntime
import ThumbServer

/// Asks nginx for thumbnails, one at a time, over one connection kept alive between them, and
/// tells from the Server-Timing mark whether each was made, a fallback or already cached. Not
/// Sendable: it belongs to the thread that asks.
final class WarmClient {
    private let client: KeepAliveClient
    private let server: String

    /// - Parameter server: where nginx listens, e.g. `http://127.0.0.1:8080`; paths go after it.
    init(server: String, timeoutSeconds: Double, accept: String?,
         shouldAbandon: @escaping @Sendable () -> Bool) throws(FetchFailure) {
        // URLs without a format are made per kind of client: the Accept says which kind.
        client = try KeepAliveClient(timeoutSeconds: timeoutSeconds, userAgent: "thumbd-warm/\(ThumbdVersion.current)",
                                     headers: accept.map { ["Accept: \($0)"] } ?? [], shouldAbandon: shouldAbandon)
        self.server = server.hasSuffix("/") ? String(server.dropLast()) : server
    }

    func ask(_ path: String) -> WarmResult {
        switch client.get(server + path, keeping: ServerTiming.name) {
        case .failure(.abandoned): return .abandoned
        case .failure(.unreachable(let why)): return .unreachable(why)
        case .success(let answer):
            guard (200..<300).contains(answer.status) else { return .failed(status: answer.status) }
            switch ServerTiming.mark(in: answer.headerValues) {
            case .miss: return .made
            case .fallback: return .fallback
            case .hit, nil: return .alreadyCached
            }
        }
    }
}
