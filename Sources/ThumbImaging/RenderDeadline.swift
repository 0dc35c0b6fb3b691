import CMagickWand
import Dispatch
import ThumbRuntime

/// A render's time limit, which ImageMagick itself enforces: its operations (decoders, resize,
/// blur, ...) report progress row by row to a monitor, and a monitor that answers false makes
/// the operation fail. So a render past its limit stops on its own thread within a row or so,
/// the thread goes back to the pool, and the job's key is free for a later try.
final class RenderDeadline {
    let seconds: Double
    private let end: UInt64
    /// Nanoseconds on a monotonic clock: the system's uptime, or a test's clock that its doubles
    /// move on, so a deadline can pass at a chosen step without waiting for it.
    private let now: () -> UInt64
    private(set) var expired = false

    init(seconds: Double, now: @escaping () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }) {
        self.seconds = seconds
        self.now = now
        end = now() + UInt64(seconds * 1_000_000_000)
    }

    /// True once the time is up; checked between steps too, for work that reports no progress.
    var isPast: Bool {
        if !expired, now() > end { expired = true }
        return expired
    }

    /// Throws the deadline's error once it is past: before work ImageMagick does not watch.
    func check() throws(ImagingFailure) {
        if isPast { throw error }
    }

    var error: ImagingFailure { .overLimit("rendering took longer than the limit of \(seconds.formatted()) s") }
}

/// ImageMagick's progress monitor for a wand watched by a RenderDeadline (its client data).
let renderProgressMonitor: MagickProgressMonitor = { _, _, _, clientData in
    guard let clientData else { return MagickTrue }
    return Unmanaged<RenderDeadline>.fromOpaque(clientData).takeUnretainedValue().isPast ? MagickFalse : MagickTrue
}
