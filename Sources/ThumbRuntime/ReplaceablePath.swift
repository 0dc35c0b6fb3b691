import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Whether a user could put something else in the place of a file that a root process opens by
/// name. nginx's master opens its logs as root, thumbd's hits log among them: a user who may write
/// a directory on the way can swap the log for a link, and root then writes where the link leads
/// (CVE-2016-1247, the web server's user owning /var/log/nginx). The answer is read from owners
/// and modes, so it holds for any user, not only the one asking.
public enum ReplaceablePath {
    /// A user as the kernel checks it: a uid and every group it is in.
    public struct User: Sendable {
        public let uid: uid_t
        public let groups: [gid_t]

        public init(uid: uid_t, groups: [gid_t]) {
            self.uid = uid
            self.groups = groups
        }

        /// The calling process: its effective ids and supplementary groups.
        public static var current: User {
            let count = getgroups(0, nil)
            var groups = [gid_t](repeating: 0, count: Int(max(0, count)))
            let filled = getgroups(count, &groups)
            return User(uid: geteuid(), groups: [getegid()] + groups.prefix(Int(max(0, filled))))
        }
    }

    /// The first directory, from `path`'s own up to `/`, in which `user` could replace the entry
    /// that leads to `path`; nil when there is none. Both the path as written and the one its
    /// links resolve to are followed, since a link on the way is an entry of its own directory.
    public static func directory(where user: User, canReplace given: String) -> String? {
        var path = given
        if !path.hasPrefix("/"), let cwd = getcwd(nil, 0) {
            path = String(cString: cwd) + "/" + path
            free(cwd)
        }
        guard path.hasPrefix("/") else { return nil }
        var resolved: String?
        if let real = realpath(parent(of: path), nil) {
            resolved = String(cString: real) + "/" + name(of: path)
            free(real)
        }
        for candidate in [path, resolved].compactMap({ $0 }) {
            var child = candidate
            while child != "/" && !child.isEmpty {
                let directory = parent(of: child)
                if canReplace(name(of: child), in: directory, user: user) { return directory }
                child = directory
            }
        }
        return nil
    }

    /// Whether `user` may remove or rename `name` in `directory`, or make it when it is missing.
    /// Its owner always may (it can change the mode); a sticky directory lets others touch only
    /// their own entries.
    static func canReplace(_ name: String, in directory: String, user: User) -> Bool {
        // The directory a link leads to is the one whose entries count; the link is its parent's.
        var info = stat()
        guard stat(directory, &info) == 0 else { return false }
        if info.st_uid == user.uid { return true }
        guard mayWrite(info, directory: directory, user: user) else { return false }
        guard info.st_mode & S_ISVTX != 0 else { return true }
        var entry = stat()
        return lstat(directory == "/" ? "/" + name : directory + "/" + name, &entry) != 0 || entry.st_uid == user.uid
    }

    /// The kernel's rule: the group's bits for a member, else the others'. With an access ACL the
    /// group bits are its mask, the most any named user or group is given: taken as the user's.
    private static func mayWrite(_ info: stat, directory: String, user: User) -> Bool {
        if user.groups.contains(info.st_gid) { return info.st_mode & S_IWGRP != 0 }
        if info.st_mode & S_IWOTH != 0 { return true }
        return info.st_mode & S_IWGRP != 0 && getxattr(directory, "system.posix_acl_access", nil, 0) > 0
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func name(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }
}
