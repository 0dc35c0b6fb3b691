import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbRuntime

/// What a Prometheus scraping thumbd reads, checked by prometheus_client's parser: answers by
/// status and by kind of error, what runs now, the process's own figures, and imgproxy's names;
/// scrapes taken while misses pour in; and the listener of its own (PROMETHEUS_BIND).
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct MetricsTests {
    let origin: TestOrigin
    let photo = TestImages.jpeg(width: 600, height: 400)

    init() throws {
        origin = try TestOrigin()
        origin.serve("/photo.jpg", .image(photo))
        origin.serve("/gone.jpg", .status(404))
    }

    @Test func answersAreCountedByStatusAndByKindOfError() throws {
        // Given thumbd with three render slots, scraped once before
        let stack = try TestStack(environment: ["THUMBD_MAX_CONCURRENT_RENDERS": "3"])
        defer { stack.shutdown() }
        let before = try PrometheusParser.parse(try stack.scrape().body)

        // When one thumbnail is made, one source is missing at its origin and one URL names no
        // option thumbd knows (imgproxy's 404 "Invalid URL")
        let made = try stack.get("/insecure/w:120/plain/\(origin.url("/photo.jpg"))@png")
        #expect(made.status == 200)
        #expect(try stack.get("/insecure/w:120/plain/\(origin.url("/gone.jpg"))@png").status == 404)
        #expect(try stack.get("/insecure/nonsense:1/plain/\(origin.url("/photo.jpg"))@png").status == 404)
        let after = try PrometheusParser.parse(try stack.scrape().body)

        // Then each answer is counted once, under its status and its kind of failure
        func increase(_ family: String, _ sample: String, _ labels: [String: String] = [:]) -> Double? {
            guard let now = after[family]?.value(sample, labels) else { return nil }
            return now - (before[family]?.value(sample, labels) ?? 0)
        }
        #expect(after["thumbd_status_codes"]?.type == "counter")
        #expect(after["thumbd_errors"]?.type == "counter")
        #expect(increase("thumbd_status_codes", "thumbd_status_codes_total", ["status": "200"]) == 1)
        #expect(increase("thumbd_status_codes", "thumbd_status_codes_total", ["status": "404"]) == 2)
        #expect(increase("thumbd_errors", "thumbd_errors_total", ["type": "source_not_found"]) == 1)
        #expect(increase("thumbd_errors", "thumbd_errors_total", ["type": "invalid_url"]) == 1)
        #expect(after["thumbd_errors"]?.samples.count == 2)
        #expect(increase("thumbd_requests", "thumbd_requests_total") == 3)

        // and the download that failed and the one that did not are timed apart, as is the render
        let spans = "thumbd_request_span_duration_seconds"
        #expect(after[spans]?.type == "histogram")
        #expect(increase(spans, spans + "_count", ["span": "downloading", "outcome": "ok"]) == 1)
        #expect(increase(spans, spans + "_count", ["span": "downloading", "outcome": "error"]) == 1)
        #expect(increase(spans, spans + "_count", ["span": "processing", "outcome": "ok"]) == 1)
        // and the thumbnail's bytes are the ones nginx served
        #expect(increase("thumbd_result_bytes", "thumbd_result_bytes_count") == 1)
        #expect(increase("thumbd_result_bytes", "thumbd_result_bytes_sum") == Double(made.body.count))

        // and nothing runs now, of three render slots
        for name in ["thumbd_requests_in_progress", "thumbd_fetches_in_progress", "thumbd_images_in_progress",
                     "thumbd_workers_utilization"] {
            #expect(after[name]?.type == "gauge", "\(name)")
            #expect(after[name]?.value(name) == 0, "\(name)")
        }
        #expect(after["thumbd_workers"]?.value("thumbd_workers") == 3)
        #expect(after["thumbd_build_info"]?.value("thumbd_build_info", ["version": ThumbdVersion.current,
                                                                        "commit": ThumbdVersion.commit]) == 1)
    }

    @Test func theProcessSaysWhatTheKernelSaysOfIt() throws {
        // Given a thumbd started between two readings of the clock
        let startedAfter = Date().timeIntervalSince1970
        let stack = try TestStack()
        defer { stack.shutdown() }
        let startedBefore = Date().timeIntervalSince1970

        // When it is scraped
        let scrape = try PrometheusParser.parse(try stack.scrape().body)

        // Then the process_* figures are there, unprefixed, with the types every exporter gives them
        func value(_ name: String) -> Double { scrape[name]?.value(name) ?? -1 }
        #expect(scrape["process_cpu_seconds"]?.type == "counter")
        #expect((scrape["process_cpu_seconds"]?.value("process_cpu_seconds_total") ?? 0) > 0)
        #expect(value("process_resident_memory_bytes") > 1_000_000)
        #expect(value("process_virtual_memory_bytes") >= value("process_resident_memory_bytes"))
        #expect(value("process_open_fds") > 0 && value("process_open_fds") < value("process_max_fds"))
        // /proc/stat gives the boot time in whole seconds
        #expect(value("process_start_time_seconds") > startedAfter - 2)
        #expect(value("process_start_time_seconds") < startedBefore + 2)
    }

    @Test func requestsAndDownloadsInProgressAreThoseWaiting() throws {
        // Given an origin that holds its answer
        let stack = try TestStack(environment: ["THUMBD_TIMEOUT": "60", "THUMBD_FIRST_BYTE_TIMEOUT": "60",
                                                "THUMBD_DOWNLOAD_TIMEOUT": "60"])
        defer { stack.shutdown() }
        origin.pause("/photo.jpg")

        // When five sizes of one photo are asked for
        let misses = (1...5).map { width in
            Thread.runDetached { [stack, origin] in try? stack.get("/insecure/w:\(width * 10)/plain/\(origin.url("/photo.jpg"))@png").status }
        }

        // Then five requests wait, on one download
        #expect(eventually(timeout: 30) {
            guard let scrape = try? PrometheusParser.parse(try stack.scrape().body) else { return false }
            return scrape["thumbd_requests_in_progress"]?.value("thumbd_requests_in_progress") == 5
                && scrape["thumbd_fetches_in_progress"]?.value("thumbd_fetches_in_progress") == 1
        })
        origin.release("/photo.jpg")
        #expect(try misses.map { try $0.value() } == Array(repeating: 200, count: 5))
        let after = try stack.metrics()
        #expect(after["thumbd_requests_in_progress"] == 0 && after["thumbd_fetches_in_progress"] == 0)
    }

    @Test func scrapesDuringManyMissesAllParseAndNoCounterGoesDown() throws {
        // Given many misses through nginx, from several clients at once
        let stack = try TestStack()
        defer { stack.shutdown() }
        let widths = Array(stride(from: 20, through: 600, by: 10))
        let clients = 8
        let answered = DispatchSemaphore(value: 0)
        let load = (0..<clients).map { client in
            Thread.runDetached { [stack, origin] in
                widths.indices.filter { $0 % clients == client }.map { index in
                    defer { answered.signal() }
                    return (try? stack.get("/insecure/w:\(widths[index])/plain/\(origin.url("/photo.jpg"))@png").status) ?? 0
                }
            }
        }

        // When scraped each time one of them is answered, while the others run
        let scrapes = try widths.map { _ in
            answered.wait()
            return try stack.scrape().body
        }
        #expect(try load.flatMap { try $0.value() } == Array(repeating: 200, count: widths.count))

        // Then every scrape parses, and no counter (histograms' counts and sums too) ever goes down
        let parsed = try PrometheusParser.parse(scrapes)
        func monotonic(_ scrape: PrometheusParser.Scrape) -> [String: Double] {
            var values: [String: Double] = [:]
            for family in scrape.values where family.type == "counter" || family.type == "histogram" {
                for sample in family.samples {
                    values[sample.name + sample.labels.sorted { $0.key < $1.key }.description] = sample.value
                }
            }
            return values
        }
        for (earlier, later) in zip(parsed, parsed.dropFirst()).map({ (monotonic($0), monotonic($1)) }) {
            for (name, value) in earlier {
                #expect((later[name] ?? -1) >= value, "\(name) went from \(value) to \(later[name] ?? -1)")
            }
        }
        let last = try #require(parsed.last)
        // and every miss is counted, with the stack's check that nginx listens (a request for /)
        #expect(last["thumbd_requests"]?.value("thumbd_requests_total") == Double(widths.count + 1))
        #expect(last["thumbd_status_codes"]?.value("thumbd_status_codes_total", ["status": "200"]) == Double(widths.count))
        #expect(last["thumbd_requests_in_progress"]?.value("thumbd_requests_in_progress") == 0)
    }

    @Test func aListenerOfItsOwnAnswersGetMetricsOnlyAndDropsASilentClient() throws {
        // Given thumbd with imgproxy's PROMETHEUS_BIND on a free port of 127.0.0.1 and its namespace
        let port = try FreePort.next()
        let stack = try TestStack(environment: ["IMGPROXY_PROMETHEUS_BIND": "127.0.0.1:\(port)",
                                                "IMGPROXY_PROMETHEUS_NAMESPACE": "imgproxy"])
        defer { stack.shutdown() }
        #expect(try stack.get("/insecure/w:80/plain/\(origin.url("/photo.jpg"))@png").status == 200)

        // When Prometheus asks the listener (bound before thumbd's socket appears), not nginx
        let scrape = try HTTPClient.get(port: port, path: "/metrics")

        // Then it answers the metrics, named as imgproxy's dashboards ask
        #expect(scrape.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        let parsed = try PrometheusParser.parse(scrape.body)
        // (the stack's check that nginx listens asked for /, an invalid URL)
        #expect(parsed["imgproxy_requests"]?.value("imgproxy_requests_total") == 2)
        #expect(parsed["imgproxy_status_codes"]?.value("imgproxy_status_codes_total", ["status": "200"]) == 1)
        #expect(parsed["imgproxy_errors"]?.value("imgproxy_errors_total", ["type": "invalid_url"]) == 1)
        #expect(parsed["imgproxy_request_duration_seconds"]?.type == "histogram")
        #expect(parsed["process_open_fds"]?.type == "gauge")
        #expect(!parsed.keys.contains { $0.hasPrefix("thumbd_") }, "\(parsed.keys.sorted())")

        // and nothing but GET /metrics
        for path in ["/", "/metric", "/metrics/x", "/_thumbd/metrics"] {
            #expect(try HTTPClient.get(port: port, path: path).status == 404, "\(path)")
        }
        #expect(try HTTPClient.get(port: port, path: "/metrics", method: "POST").status == 404)

        // and a client that connects and says nothing is dropped in time for the next scrape
        let silent = try HTTPClient.openSocket(port: port, timeout: 30)
        defer { close(silent) }
        #expect(try HTTPClient.get(port: port, path: "/metrics").status == 200)
        var byte: UInt8 = 0
        #expect(recv(silent, &byte, 1, 0) == 0)
    }
}
