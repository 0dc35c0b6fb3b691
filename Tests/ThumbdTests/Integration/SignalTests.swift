import Foundation
import Testing
@testable import ThumbCore

/// Signals an operator might send (logrotate's HUP, a habit's USR1 or USR2) neither stop thumbd
/// nor quietly retire its workers.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct SignalTests {
    @Test(arguments: [SIGHUP, SIGUSR1, SIGUSR2])
    func aSignalLeavesEveryWorkerServing(signal: Int32) throws {
        // Given thumbd with 8 workers
        let origin = try TestOrigin()
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 300, height: 200)))
        let stack = try TestStack()
        defer { stack.shutdown() }

        // When it is sent the signal, twice
        for _ in 0..<2 {
            stack.signalThumbd(signal)
            usleep(200_000)
        }

        // Then it still runs, says so, and more misses than it has workers are all answered
        #expect(stack.thumbdIsRunning)
        #expect(eventually { stack.thumbdLog.contains("signal ignored") })
        for width in 0..<12 {
            let response = try stack.get("/insecure/rs:fit:\(50 + width):50/plain/\(origin.url("/photo.jpg"))@png")
            #expect(response.status == 200)
        }
    }
}
