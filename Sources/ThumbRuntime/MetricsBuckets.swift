/// The histogram buckets the stages' metrics share, so that their figures compare.
public enum MetricsBuckets {
    /// Requests, downloads and renders.
    public static let seconds: [Swift.Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30),
    ]
    /// Sources and thumbnails.
    public static let bytes: [Double] = [1_024, 4_096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304, 16_777_216, 67_108_864]
}
