import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension Process {
    /// Starts the process with no signal blocked, as from a shell. The test runner's threads block
    /// most signals and a child inherits the mask: it would never see a TERM sent to stop it.
    func runWithSignalsUnblocked() throws {
        var none = sigset_t(), blocked = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &blocked)
        defer { pthread_sigmask(SIG_SETMASK, &blocked, nil) }
        try run()
    }
}
