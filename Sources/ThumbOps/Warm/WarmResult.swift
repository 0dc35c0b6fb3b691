/// What came back for one thumbnail `thumbd warm` asked for.
public enum WarmResult: Sendable, Hashable {
    /// thumbd made it for this request (its answer carries Server-Timing's miss).
    case made
    /// nginx served it from the cache, or thumbd answered with the file it had stored.
    case alreadyCached
    /// The source failed and thumbd answered with the fallback image, which it does not store.
    case fallback
    /// Any answer but 2xx.
    case failed(status: Int)
    /// No answer at all (refused, reset, timed out), with libcurl's reason.
    case unreachable(String)
    /// Given up on while in flight, after a second interrupt.
    case abandoned
}
