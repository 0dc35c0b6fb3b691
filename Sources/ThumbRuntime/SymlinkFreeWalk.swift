import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Opens a directory below another by a path that must hold no symlink at all, so that nothing
/// swapped into the path since it was resolved (a directory replaced by a symlink) leads out of
/// it: openat2 with RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS, or, where the kernel has no openat2
/// (before Linux 5.6: ENOSYS), one openat with O_NOFOLLOW per component.
package enum SymlinkFreeWalk {
    /// An O_PATH descriptor of the directory at `path`, the start of walks beneath it;
    /// `failure` turns an errno into the caller's error.
    package static func openRoot<Failure: Error>(_ path: String, failure: (Int32) -> Failure) throws(Failure) -> FileDescriptor {
        FileDescriptor(owning: try FileSystem.retrying({ open(path, O_PATH | O_DIRECTORY | O_CLOEXEC) }, failure: failure))
    }

    /// An O_PATH descriptor of the directory `components` name below `parent`; `failure` turns an errno into the caller's error: a symlink on the way is ELOOP or
    /// ENOTDIR, a way out of `parent` EXDEV.
    package static func openDirectory<Failure: Error>(
        _ components: [Substring], beneath parent: borrowing FileDescriptor, failure: (Int32) -> Failure
    ) throws(Failure) -> FileDescriptor {
        let path = components.isEmpty ? "." : components.joined(separator: "/")
        var unsupported = false
        do throws(Failure) {
            let parent = parent.raw
            return FileDescriptor(owning: try FileSystem.retrying({
                clinux_openat2(parent, path, UInt64(O_PATH | O_DIRECTORY | O_CLOEXEC),
                               UInt64(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS))
            }) { code in
                unsupported = code == ENOSYS
                return failure(code)
            })
        } catch {
            guard unsupported else { throw error }
            return try walk(components, beneath: parent, failure: failure)
        }
    }

    /// Internal, not private: tests reach it on kernels that have openat2.
    static func walk<Failure: Error>(
        _ components: [Substring], beneath parent: borrowing FileDescriptor, failure: (Int32) -> Failure
    ) throws(Failure) -> FileDescriptor {
        let parent = parent.raw
        var directory = FileDescriptor(owning: try FileSystem.retrying({ openat(parent, ".", O_PATH | O_DIRECTORY | O_CLOEXEC) },
                                                                      failure: failure))
        for component in components {
            let above = directory.raw
            // The directory above is closed as its successor takes its place.
            directory = FileDescriptor(owning: try FileSystem.retrying({
                openat(above, String(component), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }, failure: failure))
        }
        return directory
    }
}
