#if canImport(Glibc)
import Glibc
#endif

/// A descriptor owned by one value, closed exactly once: by `close()`, which reports what close
/// says, or when the value goes. Not copyable, so no second owner can close it again after its
/// number has been given to another thread's file or socket.
package struct FileDescriptor: ~Copyable, Sendable {
    package let raw: Int32

    /// Takes ownership of `raw`, a descriptor the caller just opened.
    package init(owning raw: Int32) {
        self.raw = raw
    }

    deinit {
        _ = Glibc.close(raw)
    }

    /// Closes now, for a caller that must know the writes reached the file. The descriptor is
    /// released even when close reports an error, so it is never closed twice.
    package consuming func close() throws(SystemFailure) {
        let raw = self.raw
        discard self
        guard Glibc.close(raw) == 0 else { throw FileSystem.failure("close") }
    }
}
