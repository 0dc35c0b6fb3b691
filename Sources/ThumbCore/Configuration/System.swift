#if canImport(Glibc)
import Glibc
#endif

public enum System {
    public static var coreCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// Makes the calling thread yield to everything else on a busy machine (nice 19): for
    /// thumbd's background work, which must not take CPU from nginx serving hits. On Linux, who 0
    /// with PRIO_PROCESS is the calling thread alone.
    public static func runInBackground() {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
    }
}
