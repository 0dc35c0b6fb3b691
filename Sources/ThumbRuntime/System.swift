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

    /// Run as root, stays root only where `path` is root's alone: owned by root and writable by
    /// no one else, its group included (with an ACL, the group bits are its mask). Else becomes its
    /// owner (that user, in the user's own group and no other), so that what follows can do no more
    /// than that owner could: `thumbd cache` acts on files and an index that thumbd, not root,
    /// wrote. The user's group, not the directory's: the package's cache is of nginx's group
    /// www-data (setgid, so that nginx reads what thumbd stores), which thumbd is not in; a user
    /// with no entry in the user database keeps the directory's group. A `path` root owns that
    /// others may write has no owner to become: refused, saying why. Nothing to do when not root.
    /// A root named by a symlink is the directory it leads to: a link root made would otherwise
    /// leave the command root.
    public static func becomeOwner(of path: String) throws(SystemFailure) {
        guard geteuid() == 0 else { return }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .internalFailure("\(path): \(String(cString: strerror(errno)))")
        }
        let othersMayWrite = info.st_mode & (S_IWGRP | S_IWOTH) != 0
        if info.st_uid == 0 {
            guard othersMayWrite else { return }
            throw .internalFailure("""
                \(path) is root's, but its group or others may write it: run as root, this command would act on \
                what they wrote with root's rights. Make it root's alone (chmod go-w), or give it to the user \
                thumbd runs as, or run the command as that user
                """)
        }
        let group = getpwuid(info.st_uid)?.pointee.pw_gid ?? info.st_gid
        guard setgroups(0, nil) == 0, setgid(group) == 0, setuid(info.st_uid) == 0 else {
            throw .internalFailure("cannot become \(path)'s owner (uid \(info.st_uid)): \(String(cString: strerror(errno)))")
        }
    }
}
