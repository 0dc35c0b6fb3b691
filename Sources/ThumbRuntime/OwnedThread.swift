import CLinux
import Foundation

/// A thread thumbd started: every one is started here, named by its role where `top -H`, `ps -L`
/// and perf look, given the stack its role needs, and known until it ends. libcurl's, OpenMP's,
/// libdispatch's and Swift's own threads are not thumbd's and are not here.
///
/// Most roles loop for the life of the process. The threads of a queue (the FastCGI workers, the
/// fetch and render pools, warm's askers) end when their queue closes, and whoever closed it
/// `join`s them; the scan ends with its scan.
public final class OwnedThread: Sendable {
    /// What a thread is for; its name is `thumbd-` and the role, then `-N` for the roles that
    /// have several threads.
    public enum Role: String, CaseIterable, Sendable {
        case worker
        case fetch
        case render
        case deadlines
        case hangups
        case metrics
        case ready
        case upkeep
        case scan
        case hits
        case fallback
        case trim
        case signals
        case warm

        /// As the thread map in docs/how-it-works.md writes it: `thumbd-worker-N` for a numbered one.
        public var pattern: String { isNumbered ? "thumbd-\(rawValue)-N" : "thumbd-\(rawValue)" }

        var isNumbered: Bool {
            switch self {
            case .worker, .fetch, .render, .warm: true
            default: false
            }
        }

        /// ImageMagick's decoders recurse deeper than the default stack allows.
        var stackSize: Int? {
            switch self {
            case .worker, .fetch, .render: 8 << 20
            default: nil
            }
        }
    }

    public let role: Role
    /// The kernel's name for it (the kernel keeps its first 15 bytes).
    public let name: String
    private let ended = Monitor(false)

    private static let running = Monitor<[ObjectIdentifier: OwnedThread]>([:])

    private init(role: Role, number: Int?) {
        self.role = role
        name = number.map { "thumbd-\(role.rawValue)-\($0)" } ?? "thumbd-\(role.rawValue)"
    }

    /// Starts `body` on a new thread of `role`; `number` tells apart the threads of a numbered role.
    @discardableResult
    public static func start(_ role: Role, number: Int? = nil, _ body: @escaping @Sendable () -> Void) -> OwnedThread {
        precondition(role.isNumbered == (number != nil), "\(role) threads are numbered, and only they")
        let owned = OwnedThread(role: role, number: number)
        running.withLock { $0[ObjectIdentifier(owned)] = owned }
        // Foundation's `Thread.name` does not reach the kernel on Linux.
        let thread = Thread {
            _ = clinux_set_thread_name(owned.name)
            body()
            running.withLock { $0[ObjectIdentifier(owned)] = nil }
            owned.ended.withLock(waking: .everyone) { $0 = true }
        }
        thread.name = owned.name
        if let stackSize = role.stackSize { thread.stackSize = stackSize }
        thread.start()
        return owned
    }

    /// The threads started and not yet ended, by name.
    public static var runningNames: [String] {
        running.withLock { $0.values.map(\.name) }.sorted()
    }

    /// Blocks until the thread's work has returned. Never from the thread itself.
    public func join() {
        ended.wait { $0 ? .done(()) : .sleep() }
    }
}
