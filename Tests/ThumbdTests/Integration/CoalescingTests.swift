import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbRequest

/// However many clients ask for one thumbnail at once, the origin is asked once.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct CoalescingTests {
    let origin: TestOrigin
    let stack: TestStack

    init() throws {
        origin = try TestOrigin()
        stack = try TestStack(environment: TestStack.signing)
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 1600, height: 1200)))
    }

    @Test func twentyConcurrentColdRequestsFetchOnce() throws {
        // Given an origin that holds its answer until every request is in
        origin.pause("/photo.jpg")
        let path = "/insecure/rs:fill:320:240/plain/\(origin.url("/photo.jpg"))@webp"

        // When 20 clients ask at once
        let results = Thread.runDetached { HTTPClient.getConcurrently(port: stack.port, path: stack.signed(path), count: 20) }
        #expect(origin.waitForRequests("/photo.jpg", count: 1, timeout: 10))
        // the other 19 reach thumbd and join the job while the origin holds its answer
        #expect(try eventually { try stack.metrics()["thumbd_thumbnail_requests_joined_total"] == 19 })
        origin.release("/photo.jpg")
        let responses = try results.value().map { try $0.get() }

        // Then: one job that 19 requests joined, one origin request, one render, 20 identical thumbnails
        #expect(try stack.metrics()["thumbd_thumbnail_jobs_total"] == 1)
        #expect(origin.requestCount("/photo.jpg") == 1)
        #expect(stack.jobLogLines.count == 1)
        #expect(responses.count == 20)
        #expect(responses.allSatisfy { $0.status == 200 && $0.body == responses[0].body })
        #expect(try ImageProbe(responses[0].body).width == 320)
    }

    @Test func requestsQueuedBehindAFinishedJobFindTheFile() throws {
        // Given a job that is done
        let path = "/insecure/rs:fit:200:200/plain/\(origin.url("/photo.jpg"))@jpg"
        #expect(try stack.get(path).status == 200)

        // When more requests reach thumbd for it (as when they were queued at the socket)
        let spelledOtherwise = "/insecure/rs:fit:200:200/\(Base64URL.encode(Array(origin.url("/photo.jpg").utf8))).jpg"
        let later = HTTPClient.getConcurrently(port: stack.port, path: stack.signed(spelledOtherwise), count: 10)

        // Then no second job starts
        #expect(later.allSatisfy { (try? $0.get().status) == 200 })
        #expect(origin.requestCount("/photo.jpg") == 1)
        #expect(stack.jobLogLines.count == 1)
    }

    @Test func twoSpellingsAskedTogetherShareTheJob() throws {
        origin.pause("/photo.jpg")
        let url = origin.url("/photo.jpg")
        let plain = "/insecure/rs:fill:90:90/plain/\(url)@png"
        let encoded = "/insecure/rs:fill:90:90/\(Base64URL.encode(Array(url.utf8))).png"

        let first = Thread.runDetached { HTTPClient.getConcurrently(port: stack.port, path: stack.signed(plain), count: 5) }
        let second = Thread.runDetached { HTTPClient.getConcurrently(port: stack.port, path: stack.signed(encoded), count: 5) }
        #expect(origin.waitForRequests("/photo.jpg", count: 1, timeout: 10))
        // the other 9 join the one job, whichever spelling they came by
        #expect(try eventually { try stack.metrics()["thumbd_thumbnail_requests_joined_total"] == 9 })
        origin.release("/photo.jpg")
        let all = try (first.value() + second.value()).map { try $0.get() }

        #expect(all.allSatisfy { $0.status == 200 })
        #expect(origin.requestCount("/photo.jpg") == 1)
        // both URLs are now files nginx serves: one file, two names
        stack.stopThumbd()
        #expect(try stack.get(plain).status == 200)
        #expect(try stack.get(encoded).status == 200)
    }
}
