import Foundation
import Testing
import ThumbdTestSupport

/// Signals an operator might send out of habit (USR1, USR2) neither stop thumbd nor quietly retire
/// its workers. (HUP reloads the settings: ReloadTests.)
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct SignalTests {
    @Test(arguments: [SIGUSR1, SIGUSR2])
    func aSignalLeavesEveryWorkerServing(signal: Int32) throws {
        // Given thumbd with 8 workers
        let origin = try TestOrigin()
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 300, height: 200)))
        let stack = try TestStack()
        defer { stack.shutdown() }

        // When it is sent the signal, twice, the second once it has said it ignored the first
        // (two sent at once may arrive as one)
        let ignored = { stack.thumbdLog.components(separatedBy: "signal ignored").count - 1 }
        for count in 1...2 {
            stack.signalThumbd(signal)
            #expect(eventually { ignored() >= count })
        }

        // Then it still runs, said so each time, and more misses than it has workers are all answered
        #expect(stack.thumbdIsRunning)
        #expect(ignored() == 2)
        for width in 0..<12 {
            let response = try stack.get("/insecure/rs:fit:\(50 + width):50/plain/\(origin.url("/photo.jpg"))@png")
            #expect(response.status == 200)
        }
    }
}
