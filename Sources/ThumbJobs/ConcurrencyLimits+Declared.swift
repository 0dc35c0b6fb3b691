import ThumbRuntime

/// How much runs at once, how long a client waits, and what is remembered for how long.
extension ConcurrencyLimits: DeclaresSettings {
    public static let settings: [Setting<ConcurrencyLimits>] = [
        Setting("TIMEOUT", imgproxy: true,
                .decimal(\.requestTimeout, 0.1...3_600),
                help: "Seconds a client waits for a thumbnail before 504; the job goes on."),
        Setting("REQUESTS_QUEUE_SIZE", imgproxy: true,
                Self.queueSize,
                help: "Jobs that may wait for a fetch or render slot; beyond, 503; 0: no limit.",
                details: "Jobs that may wait for a fetch, host or render slot; beyond it, 503 with `Retry-After`; "
                    + "0: no limit."),
        Setting("MAX_CONCURRENT_FETCHES",
                .integer(\.fetches, 1...1024),
                help: "Origin downloads at once."),
        Setting("MAX_CONCURRENT_FETCHES_PER_HOST",
                .integer(\.fetchesPerHost, 1...1024),
                help: "Origin downloads at once from one host."),
        Setting("MAX_CONCURRENT_RENDERS", imgproxyName: "WORKERS",
                .integer(\.renders, 1...1024),
                default: .described("cores"),
                help: "Renders at once.",
                details: "Renders at once (imgproxy's `WORKERS`, whose default is 2 x cores: one per core "
                    + "keeps a render's latency low)."),
        Setting("SOURCE_MEMORY_CACHE_SIZE",
                .integer(\.sourceMemoryBytes, 0...(1 << 36)),
                help: "Bytes of recently fetched originals kept in memory.",
                details: "Bytes of recently fetched originals kept in memory, so several sizes of one photo are "
                    + "fetched once."),
        Setting("SOURCE_MEMORY_CACHE_SECONDS",
                .decimal(\.sourceMemorySeconds, 0.1...3_600),
                help: "Seconds a fetched original stays in memory.",
                details: "How long a fetched original stays in memory (an idle thumbd holds none)."),
        Setting("NOT_FOUND_CACHE_TTL",
                .decimal(\.failureLifetimes.notFound, 0...86_400),
                help: "Seconds a missing or refused source is remembered."),
        Setting("ERROR_CACHE_TTL",
                .decimal(\.failureLifetimes.failure, 0...86_400),
                help: "Seconds a failing origin (5xx, timeout) is remembered."),
    ]

    /// 0: no limit.
    private static let queueSize = SettingBinding<Self>.integer(
        \.queueSize, 0...100_000, read: { $0 == 0 ? Int.max : $0 }, show: { $0 == Int.max ? "0" : "\($0)" })
}
