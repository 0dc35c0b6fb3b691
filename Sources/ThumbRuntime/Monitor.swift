import Dispatch
import Synchronization

/// A state behind a `Mutex` that a thread can sleep on until the state is as it needs: the one
/// way a thread of thumbd's waits for another. A `Mutex` only keeps others out while it is held;
/// it cannot put a thread to sleep until something changes, so each sleeper here sleeps on a
/// semaphore of its own, which keeps a wake-up sent before it sleeps: none is ever lost.
///
/// Only threads thumbd owns may wait: blocking a thread of Swift's cooperative pool deadlocks it.
public final class Monitor<State: Sendable>: Sendable {
    /// Whom a change wakes. `one` only where every sleeper waits for the same thing, so that any
    /// of them can take what the change made.
    public enum Waking: Sendable {
        case nobody
        case one
        case everyone
    }

    /// What a waiting thread does after looking at the state.
    public enum Step<Result: Sendable> {
        case done(Result)
        /// Sleeps until a change wakes it, or until `deadline` has passed, then looks again.
        case sleep(until: DispatchTime? = nil)
    }

    private struct Guarded: Sendable {
        var state: State
        var sleepers: [DispatchSemaphore] = []
    }

    private let guarded: Mutex<Guarded>

    public init(_ state: State) {
        guarded = Mutex(Guarded(state: state))
    }

    /// Runs `body` with the state, then wakes whom `waking` says.
    @discardableResult
    public func withLock<Result: Sendable, Failure: Error>(
        waking: Waking = .nobody, _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let (result, woken) = try guarded.withLock { guarded throws(Failure) -> (Result, [DispatchSemaphore]) in
            let result = try body(&guarded.state)
            switch waking {
            case .nobody:
                return (result, [])
            case .one:
                return (result, guarded.sleepers.isEmpty ? [] : [guarded.sleepers.removeFirst()])
            case .everyone:
                defer { guarded.sleepers = [] }
                return (result, guarded.sleepers)
            }
        }
        for sleeper in woken { sleeper.signal() }
        return result
    }

    /// Wakes whom `waking` says, for a change made earlier.
    public func wake(_ waking: Waking) {
        withLock(waking: waking) { _ in }
    }

    /// Looks at the state with `step` until it says `done`, sleeping in between as it asks. `step`
    /// runs with the lock held, once at first and again after every wake-up or deadline, so it must
    /// itself tell that its deadline has passed.
    public func wait<Result: Sendable>(_ step: (inout State) -> Step<Result>) -> Result {
        let sleeper = DispatchSemaphore(value: 0)
        while true {
            let next = guarded.withLock { guarded -> Step<Result> in
                let next = step(&guarded.state)
                if case .sleep = next { guarded.sleepers.append(sleeper) }
                return next
            }
            switch next {
            case .done(let result):
                return result
            case .sleep(until: nil):
                sleeper.wait()
            case .sleep(until: let deadline?):
                guard sleeper.wait(timeout: deadline) == .timedOut else { continue }
                let wasWoken = guarded.withLock { guarded in
                    guard let mine = guarded.sleepers.firstIndex(where: { $0 === sleeper }) else { return true }
                    guarded.sleepers.remove(at: mine)
                    return false
                }
                // Woken as the deadline passed: the signal is still counted, and would cut the next sleep short.
                if wasWoken { sleeper.wait() }
            }
        }
    }
}
