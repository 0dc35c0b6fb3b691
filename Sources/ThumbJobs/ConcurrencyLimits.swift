import ThumbRuntime

/// How much thumbd takes on at once, and how long a client waits.
public struct ConcurrencyLimits: Sendable {
    /// Origin transfers in flight (threads of the fetch pool).
    public var fetches = 16
    /// Origin transfers in flight to one host.
    public var fetchesPerHost = 4
    /// Renders at once (threads of the render pool); ImageMagick itself is single-threaded here.
    public var renders = System.coreCount
    /// Jobs that may wait for a fetch or render slot; beyond it, 503 with Retry-After.
    public var queueSize = 64
    /// Seconds a client waits for a thumbnail before it gets 504; the job itself goes on.
    public var requestTimeout = 10.0
    /// Recently fetched originals kept in memory, in bytes.
    public var sourceMemoryBytes = 64 * 1024 * 1024
    /// Seconds an original stays in memory after its fetch: enough for a page's sizes of one
    /// photo, short enough that an idle thumbd holds none.
    public var sourceMemorySeconds = 10.0
    /// Seconds failed sources are remembered.
    public var failureLifetimes = RecentSourceFailures.Lifetimes()

    public init() {}
}
