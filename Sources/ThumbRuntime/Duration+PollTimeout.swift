extension Duration {
    /// The timeout poll and epoll_wait take for this long: whole milliseconds, rounded up so a
    /// wait never ends just before its deadline, 0 once it has passed.
    package var pollTimeout: Int32 {
        let (seconds, attoseconds) = components
        return Int32(clamping: max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1))
    }
}
