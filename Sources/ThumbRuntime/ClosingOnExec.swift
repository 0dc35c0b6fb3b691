import CLinux

/// Calls that make descriptors already marked close-on-exec, so none leaks into a child process
/// (a render helper, a test's nginx) between being made and being marked.
package enum ClosingOnExec {
    /// accept4 with SOCK_CLOEXEC: a connection on `socket`, or -1 with errno set.
    package static func accept(_ socket: Int32) -> Int32 {
        clinux_accept_cloexec(socket)
    }
}
