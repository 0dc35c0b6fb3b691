import Foundation
#if canImport(Glibc)
import Glibc
#endif

// The one way tests wait for what happens elsewhere (another process, another thread): look
// again every few milliseconds until it is so, within a time limit, never a sleep of a guessed
// length. A test that can wait on the event itself (TestOrigin.waitForRequests) does that instead.

/// Polls `condition` until it holds; false when `timeout` seconds passed first. It blocks its
/// thread: in an async test the overload below, which does not, is the one taken.
@_disfavoredOverload
package func eventually(timeout: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        usleep(20_000)
    }
    return try condition()
}

/// The same, throwing an error that names `what` when `timeout` seconds pass first.
package func waitUntil(_ what: String, timeout: Double = 20, _ condition: () throws -> Bool) throws {
    guard try eventually(timeout: timeout, condition) else { throw StackError("timed out waiting until \(what)") }
}

/// The same for an async test: it sleeps between looks, holding no thread of Swift's pool.
package func eventually(timeout: Double = 10, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .seconds(timeout)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try await condition()
}
