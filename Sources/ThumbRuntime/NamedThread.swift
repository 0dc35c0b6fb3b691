import CLinux
import Foundation

/// thumbd's own threads, named where `top -H`, `ps -L` and perf look: Foundation's
/// `Thread.name` does not reach the kernel on Linux, so every thread was just "thumbd".
public enum NamedThread {
    /// Starts `body` on a new thread called `name` (the kernel keeps its first 15 bytes).
    public static func start(_ name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            _ = clinux_set_thread_name(name)
            body()
        }
        thread.name = name
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
    }
}
