/// What a load balancer or a supervisor asks. `GET /health` (imgproxy's path) is liveness: 200
/// whenever a worker answers, however busy thumbd is, so a burst that fills the queues does not
/// make every host look dead at once. `GET /ready` is readiness: 200 while this host can make
/// thumbnails now, 503 with a terse reason (a full queue, a cache root it cannot write, Swift's
/// pool not scheduling jobs) and no path, so traffic goes elsewhere for the moment; the detail
/// is in the log.
enum HealthCheck {
    static let livenessPath = "/health"
    static let readinessPath = "/ready"

    static func liveness() -> OutgoingResponse {
        .text(200, "ok")
    }

    static func readiness(_ readiness: Readiness) -> OutgoingResponse {
        let problems = readiness.problems()
        guard problems.isEmpty else { return .text(503, "not ready: " + problems.map(\.summary).joined(separator: "; ")) }
        return .text(200, "ready")
    }
}
