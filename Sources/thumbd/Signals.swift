import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// How thumbd's long-running commands take signals: from the defaults, whatever their parent
/// left, and each one they handle on a dispatch queue, not in a signal handler.
enum Signals {
    /// Whoever started thumbd may have left signals blocked or ignored (a test runner, some
    /// supervisors); thumbd starts from the defaults, as under systemd, and then says itself
    /// what each signal does.
    static func startWithDefaults() {
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        for number in [SIGHUP, SIGUSR1, SIGUSR2] { signal(number, SIG_DFL) }
    }

    /// Calls `handler` each time `number` arrives, instead of its default action, for as long as
    /// the returned source is kept.
    static func handle(_ number: Int32, _ handler: @escaping @Sendable () -> Void) -> DispatchSourceSignal {
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler(handler: handler)
        source.resume()
        return source
    }
}
