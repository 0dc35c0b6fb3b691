import Foundation
#if canImport(Glibc)
import Glibc
#endif

// The one way tests wait for what happens elsewhere (another process, another thread): look
// again every few milliseconds until it is so, within a time limit, never a sleep of a guessed
// length. A test that can wait on the event itself (TestOrigin.waitForRequests) does that instead.

/// Polls `condition` until it holds; false when `timeout` seconds passed first.
func eventually(timeout: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        usleep(20_000)
    }
    return try condition()
}

/// The same, throwing an error that names `what` when `timeout` seconds pass first.
func waitUntil(_ what: String, timeout: Double = 20, _ condition: () throws -> Bool) throws {
    guard try eventually(timeout: timeout, condition) else { throw StackError("timed out waiting until \(what)") }
}

/// The same for a test on Swift's cooperative pool: the task sleeps between looks, not its thread,
/// which the work it waits for may need.
func eventuallyWithoutBlocking(timeout: Double = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}
