import ThumbdTestSupport
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A program the tests start: spawned with posix_spawn in a process group of its own, with no
/// signal blocked (as from a shell), none of the test runner's descriptors but those it is given,
/// and reaped by its own pid with waitpid, so that no exit can be missed. Every wait has a deadline
/// that names what it waited for. A child still running when the test runner dies is ended by the
/// next run (`LeftoverChildren`).
final class ChildProcess: Sendable {
    /// Where a descriptor of the child comes from.
    enum Stream {
        case null
        /// Appended to, made if missing.
        case file(String)
        /// A descriptor of the test runner's, duplicated into the child.
        case descriptor(Int32)
    }

    let pid: pid_t
    /// What waitpid said once the child ended; nil while it runs.
    private let ended = Mutex<Int32?>(nil)

    /// - Parameter environment: the whole environment; nil passes the test runner's on.
    /// - Parameter inherited: descriptors the child keeps at the same numbers (a listening socket).
    init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
         stdin: Stream = .null, stdout: Stream = .null, stderr: Stream = .null, inherited: [Int32] = []) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (number, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .null: posix_spawn_file_actions_addopen(&actions, number, "/dev/null", number == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path): posix_spawn_file_actions_addopen(&actions, number, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            case .descriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd, number)
            }
        }
        // A descriptor dup2'd onto itself loses FD_CLOEXEC (glibc), so it survives the exec.
        for fd in inherited { posix_spawn_file_actions_adddup2(&actions, fd, fd) }
        Self.addCloseFrom(&actions, (inherited.max() ?? 2) + 1)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let environ = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + environ).forEach { free($0) } }
        var pid: pid_t = 0
        let error = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard error == 0 else { throw StackError("cannot start \(executable): \(String(cString: strerror(error)))") }
        self.pid = pid
        LeftoverChildren.started(pid)
    }

    deinit {
        if isRunning { kill(-pid, SIGKILL) }
        _ = try? wait(timeout: 10, for: "\(pid) to end after SIGKILL")
    }

    /// Sends `signal` to the child alone (its process group is `signalGroup`).
    func signal(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Sends `signal` to the child and every process it started that stayed in its group.
    func signalGroup(_ signal: Int32) {
        if isRunning { kill(-pid, signal) }
    }

    var isRunning: Bool { reap(blocking: false) == nil }

    /// Its exit code, or the signal that ended it (as Foundation's `terminationStatus`); nil while it runs.
    var terminationStatus: Int32? {
        reap(blocking: false).map { status in
            let signal = status & 0x7f
            return signal == 0 ? (status >> 8) & 0xff : signal
        }
    }

    /// Waits for the child to end; throws, naming `what`, when `timeout` seconds pass first.
    @discardableResult
    func wait(timeout: Double, for what: String) throws -> Int32 {
        try waitUntil(what, timeout: timeout) { !isRunning }
        return terminationStatus!
    }

    /// SIGTERM, then SIGKILL to the whole group if it has not ended within `timeout` seconds.
    func stop(timeout: Double = 10) {
        signal(SIGTERM)
        if (try? wait(timeout: timeout, for: "\(pid) to end after SIGTERM")) == nil { signalGroup(SIGKILL) }
        _ = try? wait(timeout: 10, for: "\(pid) to end after SIGKILL")
    }

    /// waitpid on this child's pid alone, once: after that the status is kept.
    private func reap(blocking: Bool) -> Int32? {
        ended.withLock { ended in
            if let ended { return ended }
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, blocking ? 0 : WNOHANG)
            guard reaped == pid else { return nil }
            ended = status
            LeftoverChildren.reaped(pid)
            return status
        }
    }

    /// glibc's posix_spawn_file_actions_addclosefrom_np (2.34), which Swift's Glibc module does not
    /// declare: the test runner's own descriptors (pipes of other tests among them) must not keep a
    /// child's reader waiting for an end of file.
    private static func addCloseFrom(_ actions: inout posix_spawn_file_actions_t, _ from: Int32) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            return
        }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, from)
    }
}
