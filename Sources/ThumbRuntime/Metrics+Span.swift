extension Metrics {
    /// A stage of a job that runs on a pool's thread, timed and counted while it runs. The raw
    /// values are imgproxy's span names.
    public enum Span: String, CaseIterable, Sendable {
        /// A source's download, once it has a thread of the fetch pool.
        case fetch = "downloading"
        /// A render, decode to encode, on a thread of the render pool.
        case render = "processing"

        /// imgproxy's name for renders in progress is images_in_progress.
        var inProgressName: String { self == .fetch ? "fetches_in_progress" : "images_in_progress" }

        var inProgressHelp: String {
            switch self {
            case .fetch: "Source downloads running now (on the fetch pool's threads)"
            case .render: "Renders running now (on the render pool's threads)"
            }
        }
    }
}
