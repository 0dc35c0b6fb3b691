#if canImport(Glibc)
import Glibc
#endif

/// libimagequant (Debian's) runs its loops under OpenMP, which would start a team of threads as
/// wide as the machine beside thumbd's own. Its team size is each calling thread's own setting,
/// so a render sets it to one on its thread before it quantises: the render's thread does the
/// work, as it does every other encoder's, and MAX_CONCURRENT_RENDERS stays the bound on CPUs.
enum OpenMP {
    static func keepToCallingThread() {
        // libgomp is loaded with libimagequant; looked up, so thumbd links no OpenMP of its own.
        guard let process = dlopen(nil, RTLD_NOW) else { return }
        defer { dlclose(process) }
        guard let symbol = dlsym(process, "omp_set_num_threads") else { return }
        typealias SetThreads = @convention(c) (Int32) -> Void
        unsafeBitCast(symbol, to: SetThreads.self)(1)
    }
}
