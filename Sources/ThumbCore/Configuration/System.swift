#if canImport(Glibc)
import Glibc
#endif

public enum System {
    public static var coreCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}
