import ThumbdTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Chromium fails the requests it has in flight when this machine's network interfaces change
/// (ERR_NETWORK_CHANGED), and deploy/cluster adds and removes some. A browser run holds this lock
/// shared and a cluster exclusively, so the two never overlap, in this test process or another;
/// it also keeps to one cluster at a time. Released when closed or deallocated.
///
/// Its file is in /tmp, where any user may make it first: it is opened only if it is a file of
/// the caller's, never through a link, and kept 0600, so no one else can hold it locked.
final class NetworkChangeLock {
    static let path = "/tmp/thumbd-network-change.lock"
    private var descriptor: Int32

    init(exclusive: Bool) throws {
        descriptor = open(Self.path, O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw StackError("cannot open \(Self.path): \(String(cString: strerror(errno)))") }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(),
              fchmod(descriptor, 0o600) == 0 else {
            close(descriptor)
            throw StackError("refusing \(Self.path): not a file of uid \(geteuid())'s; remove it")
        }
        while flock(descriptor, exclusive ? LOCK_EX : LOCK_SH) != 0 {
            guard errno == EINTR else {
                close(descriptor)
                throw StackError("cannot lock \(Self.path): \(String(cString: strerror(errno)))")
            }
        }
    }

    func release() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    deinit { release() }
}
