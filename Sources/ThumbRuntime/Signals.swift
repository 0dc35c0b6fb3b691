#if canImport(Glibc)
import Glibc
#endif

/// How thumbd's long-running commands take signals: blocked in every thread from the start, and
/// taken one by one by a thread of their own with sigwait. A signal sent at any moment after the
/// start waits until it is taken. The dispatch sources used before were armed some time after
/// they were asked for, and a signal sent in between (a test's, an operator's right after start)
/// went by unseen.
public enum Signals {
    /// Call first, before the command starts any thread: threads inherit the mask. Whatever was
    /// blocked or ignored by whoever started thumbd (a test runner, some supervisors) is back to
    /// the default, but SIGPIPE, ignored; `taking` are blocked, for `take`. Their action becomes a
    /// handler that does nothing, for a thread started before this call: ignored instead, they
    /// would be dropped even while blocked.
    public static func startWithDefaults(taking numbers: [Int32]) {
        var blocked = set(of: numbers)
        pthread_sigmask(SIG_SETMASK, &blocked, nil)
        for number in [SIGHUP, SIGUSR1, SIGUSR2] where !numbers.contains(number) { signal(number, SIG_DFL) }
        // A write to a pipe or socket whose reader is gone fails with EPIPE instead of ending
        // thumbd: a log reader can be gone before FCGX_Init would install its own handler.
        signal(SIGPIPE, SIG_IGN)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        sigemptyset(&action.sa_mask)
        for number in numbers { sigaction(number, &action, nil) }
    }

    /// Calls each signal's handler when it arrives, on the signals' thread, for the rest of the
    /// process. The signals must be among those `startWithDefaults` blocked.
    public static func take(_ handlers: [Int32: @Sendable () -> Void]) {
        OwnedThread.start(.signals) {
            var waited = set(of: Array(handlers.keys))
            while true {
                var number: Int32 = 0
                guard sigwait(&waited, &number) == 0 else { continue }
                handlers[number]?()
            }
        }
    }

    private static func set(of numbers: [Int32]) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in numbers { sigaddset(&set, number) }
        return set
    }
}
