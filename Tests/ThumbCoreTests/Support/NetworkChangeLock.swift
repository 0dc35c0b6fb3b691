import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Chromium fails the requests it has in flight when this machine's network interfaces change
/// (ERR_NETWORK_CHANGED), and deploy/cluster adds and removes some. A browser run holds this lock
/// shared and a cluster exclusively, so the two never overlap, in this test process or another;
/// it also keeps to one cluster at a time. Released when closed or deallocated.
final class NetworkChangeLock {
    static let path = "/tmp/thumbd-network-change.lock"
    private var descriptor: Int32

    init(exclusive: Bool) throws {
        descriptor = open(Self.path, O_CREAT | O_RDWR | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw StackError("cannot open \(Self.path): \(String(cString: strerror(errno)))") }
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
