import Foundation
import Testing
import ThumbdTestSupport

/// A render that runs past THUMBD_MAX_RENDER_SECONDS is stopped on its own thread, answered 422,
/// never cached, and its key is free for a later try.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct RenderWatchdogTests {
    @Test func aRenderPastItsLimitIsStoppedAndTheServiceGoesOn() throws {
        // Given a large photo, whose 2400 x 2400 PNG takes ImageMagick most of a second to make
        // (blurs no longer take long: CostlyOptionTests), and a limit of a tenth of a second
        let origin = try TestOrigin()
        origin.serve("/large.jpg", .image(TestImages.jpeg(width: 2400, height: 2400)))
        origin.serve("/small.jpg", .image(TestImages.jpeg(width: 64, height: 48)))
        let stack = try TestStack(environment: ["THUMBD_MAX_RENDER_SECONDS": "0.1", "THUMBD_MAX_CONCURRENT_RENDERS": "1"])
        defer { stack.shutdown() }
        let slow = "/insecure/rs:fit:2400:2400/plain/\(origin.url("/large.jpg"))@png"

        // When it is asked for, twice
        for _ in 0..<2 {
            let response = try stack.get(slow)

            // Then each is stopped by the watchdog, which says so
            #expect(response.status == 422)
            #expect(response.text.contains("longer than the limit of 0.1 s"), "\(response.text)")
        }
        // and each was a job of its own (the key was free again), nothing was cached, and the one
        // render thread is back at work
        #expect(stack.jobLogLines.count == 2)
        #expect(stack.cacheFiles().isEmpty)
        // (with a render far inside the limit: a thumbnail of the large photo, decoded at an
        // eighth, can pass 0.1 s when other suites' stacks share the two cores)
        #expect(try stack.get("/insecure/w:32/plain/\(origin.url("/small.jpg"))@png").status == 200)
    }
}
