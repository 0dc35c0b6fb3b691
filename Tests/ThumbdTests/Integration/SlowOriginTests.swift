import Foundation
import Testing
import ThumbdTestSupport

/// A slow origin must not stall everyone: requests waiting for its jobs hold no worker thread,
/// and what sheds load is the documented limits (per-host fetches, the queue), at once.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct SlowOriginTests {
    @Test func requestsForASlowOriginHoldNoWorkersAndThoseOverTheBoundAre503AtOnce() throws {
        // Given thumbd with 4 workers, a queue of 8 and 4 fetches per host, an origin that holds
        // its first answers until the test lets them go, then answers after 2 s, and a healthy one
        let slow = try TestOrigin()
        let healthy = try TestOrigin()
        let photo = TestImages.jpeg(width: 120, height: 80)
        for number in 0..<17 {
            slow.serve("/\(number).jpg", .image(photo, delay: 2))
            slow.pause("/\(number).jpg")
        }
        healthy.serve("/fast.jpg", .image(photo))
        let stack = try TestStack(environment: [
            "THUMBD_WORKERS": "4", "THUMBD_REQUESTS_QUEUE_SIZE": "8", "THUMBD_MAX_CONCURRENT_FETCHES_PER_HOST": "4",
            // the held answers are waited for as long as the test holds them
            "THUMBD_TIMEOUT": "60", "THUMBD_FIRST_BYTE_TIMEOUT": "60",
        ])
        defer { stack.shutdown() }

        // When 16 requests (4 x the workers) for distinct thumbnails of the slow origin are in flight
        let inFlight = (0..<16).map { number in
            Thread.runDetached { [port = stack.port] in
                (try? HTTPClient.get(port: port, path: "/insecure/w:40/plain/\(slow.url("/\(number).jpg"))@png"))?.status ?? 0
            }
        }
        #expect(eventually { (0..<16).reduce(0) { $0 + slow.requestCount("/\($1).jpg") } == 4 })
        // past 4 fetching and 8 queued, 4 are answered at once (503), while the others are held
        #expect(eventually { inFlight.filter(\.isFinished).count == 4 })

        // Then a thumbnail of the healthy origin is answered while every slow answer is still held
        let fast = try stack.get("/insecure/w:40/plain/\(healthy.url("/fast.jpg"))@png")
        #expect(fast.status == 200)
        // and one more slow request, past the queue, is 503 with Retry-After at once: still before
        // any slow answer has come
        let over = try stack.get("/insecure/w:40/plain/\(slow.url("/16.jpg"))@png")
        #expect(over.status == 503 && over.headers["retry-after"] == "1")
        #expect(slow.requestCount("/16.jpg") == 0)
        // and of the 16, once the origin answers, those the limits took (4 fetching, 8 queued)
        // are made, the 4 others were 503
        for number in 0..<17 { slow.release("/\(number).jpg") }
        let statuses = try inFlight.map { try $0.value() }
        print("slow origin: the 16 slow ones: \(statuses); one more: \(over.status)")
        #expect(statuses.filter { $0 == 200 }.count == 12, "\(statuses)")
        #expect(statuses.filter { $0 == 503 }.count == 4, "\(statuses)")
    }
}
