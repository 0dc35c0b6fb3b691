#if canImport(Glibc)
import Glibc
#endif
import ThumbRuntime

/// The listening socket systemd passes when a socket unit starts thumbd (socket activation):
/// descriptor 3, announced by LISTEN_FDS for the process LISTEN_PID names. systemd keeps the
/// socket while thumbd restarts, so nginx's connections wait in its backlog instead of being
/// refused, and thumbd must leave its path alone.
public enum ActivatedSocket {
    static let descriptor: Int32 = 3

    /// The socket, or nil when thumbd was not started so. The variables are removed either way,
    /// so nothing thumbd starts takes them for its own. Call before any thread starts: unsetenv
    /// races with getenv on another thread (ImageMagick, libcurl and Foundation read theirs).
    public static func take() throws(SystemFailure) -> Int32? {
        let environment = ["LISTEN_PID", "LISTEN_FDS"].map { (name: String) in getenv(name).map { String(cString: $0) } }
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(name) }
        guard let pid = environment[0].flatMap({ Int32($0) }), pid == getpid(), let count = environment[1] else {
            return nil
        }
        guard count == "1" else { throw .internalFailure("systemd passed \(count) sockets; thumbd listens on one") }
        var listening: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0, listening == 1 else {
            throw .internalFailure("descriptor 3 from systemd is not a listening socket")
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        return descriptor
    }
}
