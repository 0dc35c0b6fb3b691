import ThumbJobs

/// `GET /health` (imgproxy's path), for load balancers: 200 while thumbd can make thumbnails,
/// 503 naming what stops it otherwise.
struct HealthCheck: Sendable {
    static let path = "/health"

    let pipeline: ThumbnailPipeline

    func response() -> OutgoingResponse {
        let problems = pipeline.healthProblems()
        return problems.isEmpty ? .text(200, "ok") : .text(503, problems.joined(separator: "\n"))
    }
}
