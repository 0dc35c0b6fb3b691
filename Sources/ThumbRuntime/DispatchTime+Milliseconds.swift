import Dispatch

extension DispatchTime {
    /// Whole milliseconds from `start` to this instant, on the monotonic clock.
    package func milliseconds(since start: DispatchTime) -> Int {
        Int((uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000)
    }
}
