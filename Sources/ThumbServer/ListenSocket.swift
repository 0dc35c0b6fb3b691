import CFastCGI
#if canImport(Glibc)
import Glibc
#endif
import ThumbRuntime

/// The socket nginx connects to. A unix socket is for nginx alone: mode 0660, in the group nginx's
/// workers run in (thumbd's own group unless told another). Anyone who can connect can hold
/// connections, read the metrics and send parameters nginx would never send, so the socket appears
/// at its path only once it is so: it is bound in a private directory beside that path, given its
/// mode and group there, then renamed into place.
enum ListenSocket {
    static let mode: mode_t = 0o660

    /// Must follow FCGX_Init. The descriptor is close-on-exec.
    static func open(_ address: ListenAddress, group: gid_t?) throws(SystemFailure) -> Int32 {
        guard case .unix(let path) = address else { return try listen(on: address.libfcgiName) }
        unlink(path)  // a stale socket from a crashed run would make the rename's target a leftover
        let directory = try privateDirectory(besides: path)
        defer { rmdir(directory) }
        let staging = directory + "/socket"
        let descriptor = try listen(on: staging)
        guard chmod(staging, mode) == 0, group.map({ chown(staging, uid_t.max, $0) == 0 }) ?? true,
              rename(staging, path) == 0 else {
            let failure = String(cString: strerror(errno))
            unlink(staging)
            close(descriptor)
            throw .internalFailure("cannot make \(path) mode 0660\(group.map { " in group \($0)" } ?? ""): \(failure)")
        }
        return descriptor
    }

    private static func listen(on name: String) throws(SystemFailure) -> Int32 {
        let descriptor = FCGX_OpenSocket(name, 1024)
        guard descriptor >= 0 else { throw .internalFailure("cannot listen on \(name)") }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        return descriptor
    }

    /// A directory only thumbd's user may enter (mkdtemp makes it 0700), in the socket's own
    /// directory, so the rename stays on one file system.
    private static func privateDirectory(besides path: String) throws(SystemFailure) -> String {
        let parent = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        var template = Array("\(parent)/.thumbd-socket-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw .internalFailure("cannot make a directory beside \(path): \(String(cString: strerror(errno)))")
        }
        return String(cString: made)
    }
}
