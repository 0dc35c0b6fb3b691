import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbRuntime

/// What an origin feels: one fetch per source however many ask, bounded concurrency, remembered
/// failures, and refusals that never reach it.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct OriginTests {
    let origin: TestOrigin

    init() throws {
        origin = try TestOrigin()
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 1600, height: 1200)))
    }

    @Test func aHundredIdenticalColdRequestsMakeOneFetchAndOneRender() throws {
        // Given enough workers for every client to be inside thumbd at once
        let stack = try TestStack(environment: ["THUMBD_WORKERS": "128"])
        origin.pause("/photo.jpg")
        let path = "/insecure/rs:fill:240:160/plain/\(origin.url("/photo.jpg"))@webp"

        // When 100 clients ask at once, and the origin answers only when all are waiting
        let results = Thread.runDetached { HTTPClient.getConcurrently(port: stack.port, path: path, count: 100) }
        #expect(try eventually { try stack.metrics()["thumbd_thumbnail_requests_joined_total"] == 99 })
        origin.release("/photo.jpg")
        let responses = try results.value().map { try $0.get() }

        // Then
        let metrics = try stack.metrics()
        #expect(origin.requestCount("/photo.jpg") == 1)
        #expect(metrics["thumbd_renders_total"] == 1)
        #expect(metrics["thumbd_thumbnail_jobs_total"] == 1)
        #expect(responses.count == 100)
        #expect(responses.allSatisfy { $0.status == 200 && $0.body == responses[0].body })
        #expect(try ImageProbe(responses[0].body).width == 240)
    }

    @Test func fourSizesOfOnePhotoAskedTogetherFetchItOnce() throws {
        let stack = try TestStack()
        origin.pause("/photo.jpg")
        let sizes = [100, 200, 300, 400]

        let results = sizes.map { size in
            Thread.runDetached { [port = stack.port, url = origin.url("/photo.jpg")] in
                Result { try HTTPClient.get(port: port, path: "/insecure/rs:fit:\(size):\(size)/plain/\(url)@jpg") }
            }
        }
        #expect(try eventually { try stack.metrics()["thumbd_source_requests_joined_total"] == 3 })
        origin.release("/photo.jpg")
        let widths = try results.map { try ImageProbe(try $0.value().get().body).width }

        #expect(widths == sizes)
        #expect(origin.requestCount("/photo.jpg") == 1)
        #expect(try stack.metrics()["thumbd_renders_total"] == 4)
    }

    @Test func aLaterSizeOfARecentPhotoComesFromMemory() throws {
        let stack = try TestStack()
        #expect(try stack.get("/insecure/w:100/plain/\(origin.url("/photo.jpg"))@png").status == 200)
        #expect(try stack.get("/insecure/w:120/plain/\(origin.url("/photo.jpg"))@png").status == 200)
        #expect(origin.requestCount("/photo.jpg") == 1)
        #expect(try stack.metrics()["thumbd_source_memory_hits_total"] == 1)
    }

    @Test func anOriginalIsLetGoOfAfterItsSecondsInMemory() throws {
        let stack = try TestStack(environment: ["THUMBD_SOURCE_MEMORY_CACHE_SECONDS": "1"])
        let photo = origin.url("/photo.jpg")
        #expect(try stack.get("/insecure/w:100/plain/\(photo)@png").status == 200)
        let held = try #require(try stack.metrics()["thumbd_source_memory_bytes"])
        #expect(held >= 1000)  // the JPEG, at least

        // An idle thumbd holds no originals once their second is over
        #expect(try eventually { try stack.metrics()["thumbd_source_memory_bytes"] == 0 })
        #expect(try stack.get("/insecure/w:120/plain/\(photo)@png").status == 200)
        #expect(origin.requestCount("/photo.jpg") == 2)
        #expect(try stack.metrics()["thumbd_source_memory_hits_total"] == 0)
    }

    @Test func beyondTheQueueRequestsAreRefusedAtOnceWithRetryAfter() throws {
        // Given one fetch at a time from a host, and room for one more to wait
        let stack = try TestStack(environment: [
            "THUMBD_MAX_CONCURRENT_FETCHES_PER_HOST": "1", "THUMBD_REQUESTS_QUEUE_SIZE": "1",
        ])
        origin.serve("/stored.jpg", .image(TestImages.jpeg(width: 64, height: 48)))
        let stored = "/insecure/w:32/plain/\(origin.url("/stored.jpg"))@png"
        #expect(try stack.get(stored).status == 200)
        for name in ["a", "b", "c"] {
            origin.serve("/\(name).jpg", .image(TestImages.jpeg(width: 64, height: 48)))
            origin.pause("/\(name).jpg")
        }
        let first = Thread.runDetached { [port = stack.port, url = origin.url("/a.jpg")] in
            Result { try HTTPClient.get(port: port, path: "/insecure/w:32/plain/\(url)@png") }
        }
        #expect(origin.waitForRequests("/a.jpg", count: 1, timeout: 10))
        let second = Thread.runDetached { [port = stack.port, url = origin.url("/b.jpg")] in
            Result { try HTTPClient.get(port: port, path: "/insecure/w:32/plain/\(url)@png") }
        }
        #expect(try eventually { try stack.metrics()["thumbd_fetches_waiting_for_host"] == 1 })  // b waits

        // When a third source of the same host is asked for
        let third = try stack.get("/insecure/w:32/plain/\(origin.url("/c.jpg"))@png")

        // Then it is refused at once, and the first two are made once the origin answers
        #expect(third.status == 503)
        #expect(third.headers["retry-after"] == "1")
        #expect(third.text == "too busy, retry shortly\n")
        #expect(origin.requestCount("/c.jpg") == 0)
        // and nothing else is degraded: a stored thumbnail is served, thumbd says it can serve
        #expect(try stack.get(stored).status == 200)
        #expect(try stack.get("/health").status == 200)
        for name in ["a", "b", "c"] { origin.release("/\(name).jpg") }
        #expect(try first.value().get().status == 200)
        let secondResponse = try second.value().get()
        #expect(secondResponse.status == 200, "\(secondResponse.text)")
        #expect(try stack.metrics()["thumbd_errors_total{type=\"overloaded\"}"] == 1)
        #expect(try stack.get("/insecure/w:32/plain/\(origin.url("/c.jpg"))@png").status == 200)
    }

    @Test func aClientPastTheDeadlineGets504WhileTheJobFillsTheCache() throws {
        let stack = try TestStack(environment: ["THUMBD_TIMEOUT": "1"])
        origin.serve("/slow.jpg", .image(TestImages.jpeg(width: 64, height: 48), delay: 2))
        let path = "/insecure/w:32/plain/\(origin.url("/slow.jpg"))@png"

        let late = try stack.get(path)
        #expect(late.status == 504)
        #expect(late.text == "thumbnail not ready in time, retry shortly\n")

        // the job went on: the file appears, and nginx serves it without asking the origin again
        #expect(eventually { stack.cacheFiles().count == 1 })
        #expect(try stack.get(path).status == 200)
        #expect(origin.requestCount("/slow.jpg") == 1)
    }

    @Test func aSilentOriginIsGivenUpOnAtTheFirstByteTimeout() throws {
        let stack = try TestStack(environment: ["THUMBD_FIRST_BYTE_TIMEOUT": "0.5", "THUMBD_DOWNLOAD_TIMEOUT": "30"])
        // An origin that answers after 20 s: within the 30 s download timeout, so a 504 can only
        // be the first byte's timeout
        origin.serve("/silent.jpg", .image(TestImages.jpeg(width: 64, height: 48), delay: 20))
        let response = try stack.get("/insecure/w:32/plain/\(origin.url("/silent.jpg"))@png")
        #expect(response.status == 504)
        #expect(response.text == "origin timed out\n")
    }

    @Test func aFlappingOriginIsRememberedBrieflyAndNeverCached() throws {
        // Given an origin that fails, and failures remembered for one second
        let stack = try TestStack(environment: ["THUMBD_ERROR_CACHE_TTL": "1"])
        origin.serve("/flap.jpg", .status(500))
        let path = "/insecure/w:32/plain/\(origin.url("/flap.jpg"))@png"

        // When it is asked for twice in a row
        #expect(try stack.get(path).status == 502)
        #expect(try stack.get(path).status == 502)

        // Then the origin was asked once, and nothing was cached
        #expect(origin.requestCount("/flap.jpg") == 1)
        #expect(try stack.metrics()["thumbd_failure_memory_hits_total"] == 1)
        #expect(stack.cacheFiles().isEmpty)

        // And after the memory lapses, the recovered origin gives a thumbnail
        origin.serve("/flap.jpg", .image(TestImages.jpeg(width: 64, height: 48)))
        Thread.sleep(forTimeInterval: 1.2)  // real time: the memory's lifetime is in seconds of thumbd's clock
        #expect(try stack.get(path).status == 200)
        #expect(origin.requestCount("/flap.jpg") == 2)
    }

    @Test func aMissingSourceIsNotAskedForAgainAtOnce() throws {
        let stack = try TestStack()
        for size in [10, 20, 30] {
            #expect(try stack.get("/insecure/w:\(size)/plain/\(origin.url("/missing.jpg"))@png").status == 404)
        }
        #expect(origin.requestCount("/missing.jpg") == 1)
    }

    @Test func fetchesReuseTheConnectionAndNameThumbd() throws {
        let stack = try TestStack()
        for name in ["k1", "k2", "k3"] {
            origin.serve("/\(name).jpg", .image(TestImages.jpeg(width: 64, height: 48)))
            #expect(try stack.get("/insecure/w:32/plain/\(origin.url("/\(name).jpg"))@png").status == 200)
        }
        #expect(origin.connectionCount == 1)
        #expect(origin.lastHeaders("/k3.jpg")["user-agent"] == "thumbd/\(ThumbdVersion.current)")
    }

    @Test func tooManyRedirectsIsAnOriginFailure() throws {
        let stack = try TestStack(environment: ["THUMBD_MAX_REDIRECTS": "2"])
        for hop in 0..<4 {
            origin.serve("/hop\(hop)", .redirect(origin.url("/hop\(hop + 1)")))
        }
        let response = try stack.get("/insecure/w:32/plain/\(origin.url("/hop0"))@png")
        #expect(response.status == 502)
        // the client gets one sentence; why is in the log
        #expect(response.text == "origin failed to deliver the source\n")
        #expect(eventually { stack.thumbdLog.contains("more than 2 redirects") })
        #expect(origin.requestCount("/hop3") == 0)
    }

    @Test func extraHeadersGoOnlyToTheirPrefix() throws {
        let stack = try TestStack(environment: ["THUMBD_SOURCE_HEADERS": "\(origin.url("/private/")) X-Origin-Key: s3cret"])
        origin.serve("/private/photo.jpg", .image(TestImages.jpeg(width: 64, height: 48)))
        #expect(try stack.get("/insecure/w:32/plain/\(origin.url("/private/photo.jpg"))@png").status == 200)
        #expect(try stack.get("/insecure/w:32/plain/\(origin.url("/photo.jpg"))@png").status == 200)
        #expect(origin.lastHeaders("/private/photo.jpg")["x-origin-key"] == "s3cret")
        #expect(origin.lastHeaders("/photo.jpg")["x-origin-key"] == nil)
    }

    @Test func extraHeadersFollowARedirectOnlyWhereTheirPrefixStillMatches() throws {
        // Given a token for the origin as 127.0.0.1, and redirects within it and to another host name
        let stack = try TestStack(environment: ["THUMBD_SOURCE_HEADERS": "\(origin.url("/")) X-Origin-Key: s3cret"])
        origin.serve("/a.jpg", .image(TestImages.jpeg(width: 64, height: 48)))
        origin.serve("/b.jpg", .image(TestImages.jpeg(width: 64, height: 48)))
        origin.serve("/moved-here", .redirect(origin.url("/a.jpg")))
        origin.serve("/moved-away", .redirect("http://localhost:\(origin.port)/b.jpg"))

        // When both are fetched
        #expect(try stack.get("/insecure/w:32/plain/\(origin.url("/moved-here"))@png").status == 200)
        #expect(try stack.get("/insecure/w:32/plain/\(origin.url("/moved-away"))@png").status == 200)

        // Then the token went to 127.0.0.1 on every hop, and never to the other host
        #expect(origin.lastHeaders("/moved-here")["x-origin-key"] == "s3cret")
        #expect(origin.lastHeaders("/a.jpg")["x-origin-key"] == "s3cret")
        #expect(origin.lastHeaders("/moved-away")["x-origin-key"] == "s3cret")
        #expect(origin.requestCount("/b.jpg") == 1)
        #expect(origin.lastHeaders("/b.jpg")["x-origin-key"] == nil)
    }

    @Test func aClientThatGoesAwayDoesNotCancelTheJobOthersWaitFor() throws {
        let stack = try TestStack()
        origin.pause("/photo.jpg")
        let path = "/insecure/w:48/plain/\(origin.url("/photo.jpg"))@png"

        // Given one client that gives up after half a second, and one that waits
        let impatient = Thread.runDetached { [port = stack.port] in
            Result { try HTTPClient.get(port: port, path: path, timeout: 0.5) }
        }
        #expect(origin.waitForRequests("/photo.jpg", count: 1, timeout: 10))
        let patient = Thread.runDetached { [port = stack.port] in
            Result { try HTTPClient.get(port: port, path: path) }
        }
        if case .success = try impatient.value() { Issue.record("the impatient client should have timed out") }

        // When the origin answers after the first client left
        origin.release("/photo.jpg")

        // Then the one that waited gets the thumbnail, from the one job
        #expect(try patient.value().get().status == 200)
        #expect(origin.requestCount("/photo.jpg") == 1)
        #expect(try stack.metrics()["thumbd_thumbnail_jobs_total"] == 1)
    }
}
