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

    /// Run as root, becomes the owner of `path` (its user, its group, no other groups), so that
    /// what follows can do no more than that owner could: `thumbd cache` acts on files and an
    /// index that thumbd, not root, wrote. Nothing to do when not root or when root owns `path`.
    /// A root named by a symlink is the directory it leads to: a link root made would otherwise
    /// leave the command root.
    public static func becomeOwner(of path: String) throws(ThumbError) {
        guard geteuid() == 0 else { return }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .internalFailure("\(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_uid != 0 else { return }
        guard setgroups(0, nil) == 0, setgid(info.st_gid) == 0, setuid(info.st_uid) == 0 else {
            throw .internalFailure("cannot become \(path)'s owner (uid \(info.st_uid)): \(String(cString: strerror(errno)))")
        }
    }
}
