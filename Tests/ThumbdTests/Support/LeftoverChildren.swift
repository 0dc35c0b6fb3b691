import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The children a test run started and has not reaped, noted on disk, so that a run that was
/// killed (a CI limit, a hung test stopped by hand) leaves nothing running for long: the next run
/// ends what the dead one left, each child's whole process group, before it starts its first.
///
/// A note is a file named `{runner pid}-{runner start}-{child pid}-{child start}` (start times in
/// clock ticks since boot, from /proc), so a pid the kernel has handed to another process since is
/// never taken for ours. Kept in root's /run when the tests run as root, else in a directory of
/// the user's own.
enum LeftoverChildren {
    private static let swept = Mutex(false)

    static func started(_ pid: pid_t) {
        sweepOnce()
        guard let directory, let runner = startTime(of: getpid()), let child = startTime(of: pid) else { return }
        let note = "\(directory)/\(getpid())-\(runner)-\(pid)-\(child)"
        let fd = open(note, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd >= 0 { close(fd) }
    }

    static func reaped(_ pid: pid_t) {
        guard let directory, let runner = startTime(of: getpid()) else { return }
        let prefix = "\(getpid())-\(runner)-\(pid)-"
        for name in notes(in: directory) where name.hasPrefix(prefix) { unlink("\(directory)/\(name)") }
    }

    private static func sweepOnce() {
        guard swept.withLock({ done in defer { done = true }; return !done }) else { return }
        sweep()
    }

    /// Ends the process groups of children whose test run is gone, and forgets them.
    static func sweep() {
        guard let directory else { return }
        for name in notes(in: directory) {
            let fields = name.split(separator: "-").compactMap { Int($0) }
            guard fields.count == 4 else { continue }
            let (runner, runnerStart, child, childStart) = (pid_t(fields[0]), fields[1], pid_t(fields[2]), fields[3])
            if startTime(of: runner) == runnerStart { continue }  // that run still goes on
            // The child's pid names its group. While any process is in the group the kernel hands
            // the pid to no one else, and a process with that pid but another start time is not ours.
            if let start = startTime(of: child), start != childStart {
                unlink("\(directory)/\(name)")
                continue
            }
            kill(-child, SIGKILL)
            kill(child, SIGKILL)
            unlink("\(directory)/\(name)")
        }
    }

    /// The notes' directory, made if missing; nil when it is not the user's alone.
    static let directory: String? = {
        let path = getuid() == 0 ? "/run/thumbd-test-children" : NSTemporaryDirectory() + "thumbd-test-children-\(getuid())"
        mkdir(path, 0o700)
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == getuid(),
              info.st_mode & 0o077 == 0 else { return nil }
        return path
    }()

    private static func notes(in directory: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    }

    /// Field 22 of /proc/PID/stat, the process's start; nil when there is no such process.
    static func startTime(of pid: pid_t) -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let afterName = stat.lastIndex(of: ")") else { return nil }
        // Fields from the third on follow the name; the start time is the 22nd.
        let fields = stat[stat.index(after: afterName)...].split(separator: " ")
        return fields.count > 19 ? Int(fields[19]) : nil
    }
}
