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

    /// Run as root, becomes the owner of `path` (its user, in that user's own group and no other),
    /// so that what follows can do no more than that owner could: `thumbd cache` acts on files and
    /// an index that thumbd, not root, wrote. The user's group, not the directory's: the package's
    /// cache is of nginx's group www-data (setgid, so that nginx reads what thumbd stores), which
    /// thumbd is not in. A user with no entry in the user database keeps the directory's group.
    /// Nothing to do when not root or when root owns `path`. A root named by a symlink is the
    /// directory it leads to: a link root made would otherwise leave the command root.
    public static func becomeOwner(of path: String) throws(ThumbError) {
        guard geteuid() == 0 else { return }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .internalFailure("\(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_uid != 0 else { return }
        let group = getpwuid(info.st_uid)?.pointee.pw_gid ?? info.st_gid
        guard setgroups(0, nil) == 0, setgid(group) == 0, setuid(info.st_uid) == 0 else {
            throw .internalFailure("cannot become \(path)'s owner (uid \(info.st_uid)): \(String(cString: strerror(errno)))")
        }
    }
}
