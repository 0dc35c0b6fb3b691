import Foundation
import Testing
import ThumbdTestSupport

/// What an operator's load balancer and Prometheus ask nginx for: /health, /ready and
/// /_thumbd/metrics.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct OperatorEndpointTests {
    let origin: TestOrigin
    let stack: TestStack
    let photo = TestImages.jpeg(width: 600, height: 400)

    init() throws {
        origin = try TestOrigin()
        stack = try TestStack()
        origin.serve("/photo.jpg", .image(photo))
        origin.serve("/text.html", .init(headers: [("Content-Type", "text/html")], body: Array("<p>no image</p>".utf8)))
    }

    @Test func healthAndReadinessAreOKWhileThumbdCanServeAndGoneWithIt() throws {
        let health = try stack.get("/health")
        #expect(health.status == 200 && health.text == "ok\n")
        #expect(health.headers["cache-control"] == "no-store")
        let ready = try stack.get("/ready")
        #expect(ready.status == 200 && ready.text == "ready\n")

        stack.stopThumbd()
        #expect(try stack.get("/health").status == 502)
        #expect(try stack.get("/ready").status == 502)
    }

    @Test func queuesFullMakeTheHostNotReadyButStillAlive() throws {
        // Given thumbd with one fetch thread and a queue of one, and an origin that holds its answers
        let slow = try TestOrigin()
        for name in ["a", "b", "c"] { slow.serve("/\(name).jpg", .image(TestImages.jpeg(width: 64, height: 48))) }
        for name in ["a", "b", "c"] { slow.pause("/\(name).jpg") }
        let busy = try TestStack(environment: ["THUMBD_MAX_CONCURRENT_FETCHES": "1", "THUMBD_REQUESTS_QUEUE_SIZE": "1",
                                               "THUMBD_TIMEOUT": "60", "THUMBD_FIRST_BYTE_TIMEOUT": "60",
                                               "THUMBD_DOWNLOAD_TIMEOUT": "60"])
        defer { busy.shutdown() }

        // When misses fill the fetch thread and its queue
        let misses = ["a", "b"].map { name in
            Thread.runDetached { try? busy.get("/insecure/w:32/plain/\(slow.url("/\(name).jpg"))@png").status }
        }
        #expect(eventually(timeout: 30) { slow.requestCount("/a.jpg") + slow.requestCount("/b.jpg") == 1 })
        #expect(eventually(timeout: 30) { (try? busy.get("/ready").status) == 503 })

        // Then the host is alive but not ready, and says why
        let ready = try busy.get("/ready")
        #expect(ready.status == 503 && ready.text == "not ready: the fetch queue is full\n", "\(ready.text)")
        for _ in 0..<10 { #expect(try busy.get("/health").status == 200) }

        // and once the origin answers, it is ready again and both misses are answered
        for name in ["a", "b", "c"] { slow.release("/\(name).jpg") }
        #expect(try misses.map { try $0.value() } == [200, 200])
        #expect(eventually(timeout: 30) { (try? busy.get("/ready").status) == 200 })
    }

    @Test func notReadyWhenTheCacheRootCannotBeWritten() throws {
        // Given a cache root that turns read-only (a tmpfs mounted over it: needs root; skipped
        // with a message otherwise)
        guard SharedCacheTests.mount(tmpfsOf: "64k", at: stack.cacheRoot, readOnly: true) else {
            print("skipped: cannot mount a tmpfs here (not root?)")
            return
        }
        let unmounted = { SharedCacheTests.unmount(stack.cacheRoot) }

        // Then, by its next check, the host is not ready, and says why without naming a path
        #expect(eventually(timeout: 30) { (try? stack.get("/ready").status) == 503 })
        let broken = try stack.get("/ready")
        #expect(broken.text == "not ready: cannot store thumbnails\n", "\(broken.text)")
        #expect(!broken.text.contains("/"))
        #expect(try stack.get("/health").status == 200)
        // (the log has the detail)
        #expect(stack.thumbdLog.contains("cannot store thumbnails: ") && stack.thumbdLog.contains(stack.cacheRoot))

        // When it is writable again, thumbd is ready again
        #expect(unmounted())
        #expect(eventually(timeout: 30) { (try? stack.get("/ready").status) == 200 })
    }

    @Test func readinessMakesNoFilePerRequest() throws {
        // Given a watch on the files made in the cache root (where the check makes its file)
        let watch = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        #expect(watch >= 0)
        defer { close(watch) }
        #expect(inotify_add_watch(watch, stack.cacheRoot, UInt32(IN_CREATE)) >= 0)

        // When a load balancer asks /ready 100 times
        let asked = 100
        for _ in 0..<asked { #expect(try stack.get("/ready").status == 200) }

        // Then fewer files were made than it asked: the check runs on a timer, not per request
        var made = 0
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(watch, &buffer, buffer.count)
            guard count > 0 else { break }
            var offset = 0
            while offset < count {
                let length = buffer.withUnsafeBytes { Int($0.load(fromByteOffset: offset + 12, as: UInt32.self)) }
                made += 1
                offset += 16 + length
            }
        }
        #expect(made < asked, "\(made) files made for \(asked) requests")
    }

    @Test func theMetricsThroughNginxAskForTheToken() throws {
        // Given thumbd with a METRICS_TOKEN, behind the site on this host (where a reverse proxy's
        // clients would arrive from too)
        // When a client asks without it, with another, and with it
        let without = try stack.get("/_thumbd/metrics")
        let wrong = try stack.get("/_thumbd/metrics", headers: ["Authorization": "Bearer \(TestStack.metricsToken)x"])
        let basic = try stack.get("/_thumbd/metrics", headers: ["Authorization": "Basic \(TestStack.metricsToken)"])
        let right = try stack.scrape()

        // Then only the token gets the metrics
        for refused in [without, wrong, basic] {
            #expect(refused.status == 401 && refused.headers["www-authenticate"] == "Bearer", "\(refused.status)")
            #expect(!refused.text.contains("thumbd_requests_total"))
        }
        #expect(right.status == 200 && right.text.contains("thumbd_requests_total"))

        // and a thumbd without a token refuses them all
        let tokenless = try TestStack(unsetting: ["THUMBD_METRICS_TOKEN"])
        defer { tokenless.shutdown() }
        let off = try tokenless.scrape()
        #expect(off.status == 403 && off.text.contains("METRICS_TOKEN"), "\(off.text)")
    }

    @Test func metricsParseWithPrometheusOwnParserAndCountWhatHappened() throws {
        let before = try PrometheusParser.parse(try stack.scrape().body)

        // Given two misses, a download thumbd answers twice (stored under a name only thumbd
        // looks up), a source that is no image, and a bad URL
        let thumbnail = "/insecure/rs:fit:100:100/plain/\(origin.url("/photo.jpg"))"
        #expect(try stack.get(thumbnail + "@png").status == 200)
        #expect(try stack.get(thumbnail + "@webp").status == 200)
        let download = "/insecure/w:50/att:1/plain/\(origin.url("/photo.jpg"))@jpg"
        #expect(try stack.get(download).status == 200)
        #expect(try stack.get(download).status == 200)
        #expect(try stack.get("/insecure/w:50/plain/\(origin.url("/text.html"))@png").status == 422)
        #expect(try stack.get("/insecure/nonsense:1/plain/\(origin.url("/photo.jpg"))@png").status == 404)

        // When Prometheus' text parser reads the scrape
        let scrape = try stack.scrape()
        #expect(scrape.status == 200)
        #expect(scrape.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        let after = try PrometheusParser.parse(scrape.body)

        // Then every family has HELP and TYPE, and the numbers grew by what happened
        #expect(after.values.allSatisfy { !$0.help.isEmpty })
        #expect(after["thumbd_requests"]?.type == "counter")
        #expect(after["thumbd_request_duration_seconds"]?.type == "histogram")
        #expect(after["thumbd_cache_entries"]?.type == "gauge")
        func increase(_ family: String, _ sample: String, outcome: String? = nil, le: String? = nil) -> Double? {
            guard let now = after[family]?.value(sample, outcome: outcome, le: le) else { return nil }
            return now - (before[family]?.value(sample, outcome: outcome, le: le) ?? 0)
        }
        #expect(increase("thumbd_requests", "thumbd_requests_total") == 6)
        #expect(increase("thumbd_renders", "thumbd_renders_total") == 3)
        #expect(increase("thumbd_origin_fetches", "thumbd_origin_fetches_total") == 2)
        #expect(increase("thumbd_stored_file_answers", "thumbd_stored_file_answers_total") == 1)
        #expect(increase("thumbd_thumbnail_jobs", "thumbd_thumbnail_jobs_total") == 4)
        let requests = "thumbd_request_duration_seconds"
        #expect(increase(requests, requests + "_count", outcome: "ok") == 3)
        #expect(increase(requests, requests + "_count", outcome: "stored") == 1)
        #expect(increase(requests, requests + "_count", outcome: "error") == 2)
        #expect(increase(requests, requests + "_bucket", outcome: "ok", le: "+Inf") == 3)
        #expect((increase(requests, requests + "_sum", outcome: "ok") ?? 0) > 0)
        let spans = "thumbd_request_span_duration_seconds"
        func spanCount(_ span: String) -> Double? {
            let labels = ["span": span, "outcome": "ok"]
            return after[spans]?.value(spans + "_count", labels).map { $0 - (before[spans]?.value(spans + "_count", labels) ?? 0) }
        }
        #expect(spanCount("processing") == 3)
        #expect(spanCount("downloading") == 2)
        #expect(increase("thumbd_source_bytes", "thumbd_source_bytes_count", outcome: "ok") == 3)
        #expect(increase("thumbd_source_bytes", "thumbd_source_bytes_sum", outcome: "ok") == Double(3 * photo.count))
        #expect(after["thumbd_cache_entries"]?.value("thumbd_cache_entries") == 3)
        #expect((after["thumbd_cache_bytes"]?.value("thumbd_cache_bytes") ?? 0) > 0)
    }
}
