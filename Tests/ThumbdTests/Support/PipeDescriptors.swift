import ThumbdTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A pipe's two descriptors, closed on exec: a child gets only the end it is handed
/// (`ChildProcess.Stream.descriptor`), and the test closes its copy of that end once it started.
struct PipeDescriptors {
    let reading: Int32
    let writing: Int32

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw StackError("pipe: \(String(cString: strerror(errno)))") }
        // Swift's Glibc does not declare pipe2; a child spawned meanwhile closes them anyway.
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        (reading, writing) = (ends[0], ends[1])
    }

    /// Reads until the writing ends are all closed, or until `deadline` (a daemon the program
    /// started may hold a writing end for good), and closes `fd`.
    static func readToEnd(_ fd: Int32, until deadline: ContinuousClock.Instant) -> [UInt8] {
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let left = deadline - .now
            guard left > .zero else { return bytes }
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, Int32(min(left / .milliseconds(1), 1_000)) + 1)
            if polled == 0 || (polled < 0 && errno == EINTR) { continue }
            let count = read(fd, &chunk, chunk.count)
            if count > 0 {
                bytes += chunk[..<count]
            } else if count == 0 || errno != EINTR {
                return bytes
            }
        }
    }

    /// Writes what it can: a program that exits without reading its input is not an error here
    /// (SIGPIPE is ignored, so the write fails with EPIPE instead of ending the tests).
    static func writeAll(_ bytes: [UInt8], to fd: Int32) {
        _ = brokenPipesIgnored
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                written += count
            } else if count < 0 && errno != EINTR {
                return
            }
        }
    }

    private static let brokenPipesIgnored: Void = { signal(SIGPIPE, SIG_IGN) }()
}
