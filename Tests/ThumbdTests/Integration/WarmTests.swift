import Foundation
import Testing
import ThumbdTestSupport
@testable import ThumbRequest

/// `thumbd warm` run as a process against real nginx + thumbd + an origin: what it counts as
/// made, already cached and failed, what it leaves in the cache, and how it stops when told to.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct WarmTests {
    /// imgproxy's documented key and salt ("secret", "hello").
    static let key = ["--key", "736563726574", "--salt", "68656C6C6F"]
    static let keyEnvironment = ["THUMBD_KEY": "736563726574", "THUMBD_SALT": "68656C6C6F"]
    static let signing = SignatureVerifier(pairs: [ImgproxySigningExample.keyPair])

    let origin: TestOrigin

    init() throws {
        origin = try TestOrigin()
        origin.serve("/a.jpg", .image(TestImages.jpeg(width: 600, height: 400)))
        origin.serve("/b.jpg", .image(TestImages.jpeg(width: 400, height: 600)))
        origin.serve("/c.png", .image(TestImages.halves(width: 300, height: 200, format: .png), contentType: "image/png"))
        origin.serve("/page.html", .image(Array("<html>not an image</html>".utf8), contentType: "text/html"))
    }

    @Test func aListIsSignedMadeOnceAndThenServedByNginx() throws {
        // Given a keyed thumbd, one thumbnail already asked for by a client, and a list of six
        // lines: that one, three new ones (one as a whole URL), one of them twice, a source the
        // origin does not have, and one that is no image
        let stack = try TestStack(environment: Self.keyEnvironment)
        defer { stack.shutdown() }
        let cached = "/rs:fill:100:80/plain/\(origin.url("/a.jpg"))@webp"
        #expect(try stack.get(Self.signing.signedPath(cached)).status == 200)
        let made = [
            "/rs:fill:100:80/plain/\(origin.url("/b.jpg"))@webp",
            "/rs:fit:60:60/plain/\(origin.url("/c.png"))@png",
            "/rs:fit:50:50/plain/\(origin.url("/a.jpg"))@jpg",
        ]
        let lines = [
            cached, made[0], made[1], "http://thumbs.example.com" + made[2], made[0],
            "/w:100/plain/\(origin.url("/missing.jpg"))@webp", "/w:100/plain/\(origin.url("/page.html"))@png",
        ]
        let list = try Self.file(lines.joined(separator: "\n"), in: stack)

        // When warmed with the key
        let first = try WarmProcess.run(stack: stack, Self.key + [list])

        // Then the new ones were made, the known one was there, and the failures are named
        #expect(first.status == 1, "\(first.log)")
        #expect(first.summary.first == "made 3, already cached 1, failed 2 (404: 1, 422: 1)")
        #expect(first.summary.dropFirst().first?.hasPrefix("6 thumbnails in ") == true)
        #expect(first.summary.dropFirst().first?.hasSuffix(" s, 1 duplicate skipped") == true)
        for path in made { #expect(first.log.contains("made \(Self.signing.signedPath(path))\n"), "\(first.log)") }
        #expect(first.log.contains("cached \(Self.signing.signedPath(cached))\n"))
        #expect(first.log.contains("failed 404 \(Self.signing.signedPath("/w:100/plain/\(origin.url("/missing.jpg"))@webp"))\n"))
        // and each is a file where nginx looks: by the URL's signature
        for path in made {
            let format = String(path.split(separator: "@").last!)
            #expect(stack.cacheFiles().contains(stack.servedFile(Self.signing.signedPath(path), format: format)))
        }
        #expect(stack.cacheFiles().count == 4)

        // When warmed again
        let second = try WarmProcess.run(stack: stack, Self.key + [list])

        // Then everything that was made is already cached, and the origin was asked once each
        #expect(second.summary.first == "made 0, already cached 4, failed 2 (404: 1, 422: 1)")
        #expect((origin.requestCount("/a.jpg"), origin.requestCount("/b.jpg"), origin.requestCount("/c.png")) == (1, 1, 1))
        // and nginx alone serves them, as hits: without thumbd, and without its miss marker
        stack.stopThumbd()
        for path in made + [cached] {
            let hit = try stack.get(Self.signing.signedPath(path))
            #expect(hit.status == 200)
            #expect(hit.headers["server-timing"] == nil)
        }
    }

    @Test func signedPathsAreReadFromStandardInputAsTheyAre() throws {
        // Given a keyed thumbd and, on standard input, a path signed by `thumbd sign`'s rule, the same
        // path under a forged signature, and under none
        let stack = try TestStack(environment: Self.keyEnvironment)
        defer { stack.shutdown() }
        let path = "/rs:fit:80:80/plain/\(origin.url("/a.jpg"))@png"
        let signed = Self.signing.signedPath(path)
        let forged = "/AAAA" + signed.dropFirst(5)
        let input = "\(signed)\n\(forged)\n/insecure\(path)\n"

        // When warmed from standard input, as signed lines
        let run = try WarmProcess.run(stack: stack, ["--signed"], input: input)

        // Then the right signature was made and the two others refused, by thumbd
        #expect(run.status == 1)
        #expect(run.summary.first == "made 1, already cached 0, failed 2 (403: 2)")
        #expect(run.log.contains("failed 403 \(forged)\n"))
        #expect(stack.cacheFiles().contains(stack.servedFile(signed, format: "png")))
        #expect(stack.cacheFiles().count == 1)
    }

    @Test func sourcesAreCrossedWithPresets() throws {
        // Given thumbd with two presets, and two sources
        let stack = try TestStack(environment: Self.keyEnvironment.merging(
            ["THUMBD_PRESETS": "thumb=rs:fill:120:80,large=rs:fit:300:300"]) { $1 })
        defer { stack.shutdown() }
        let sources = [origin.url("/a.jpg"), origin.url("/b.jpg")]

        // When warmed with both presets, in WebP, from standard input
        let run = try WarmProcess.run(stack: stack, Self.key + ["--preset", "thumb", "--preset", "large", "--format", "webp"],
                                      input: sources.joined(separator: "\n"))

        // Then each source was fetched once and made in both presets
        #expect(run.status == 0, "\(run.log)")
        #expect(run.summary.first == "made 4, already cached 0, failed 0")
        #expect((origin.requestCount("/a.jpg"), origin.requestCount("/b.jpg")) == (1, 1))
        // and nginx serves each as the preset made it
        stack.stopThumbd()
        for (source, sizes) in zip(sources, [[(120, 80), (300, 200)], [(120, 80), (200, 300)]]) {
            for (preset, size) in zip(["thumb", "large"], sizes) {
                let hit = try stack.get("/insecure/pr:\(preset)/plain/\(source)@webp")
                #expect(hit.status == 200)
                let image = try ImageProbe(hit.body)
                #expect(image.format == "WEBP")
                #expect((image.width, image.height) == size)
            }
        }
    }

    @Test func aStoredThumbnailThumbdAnswersItselfCountsAsAlreadyCached() throws {
        // Given a thumbnail with a download name: nginx never serves its file bare, so thumbd
        // answers every request for it, the later ones with the file it stored
        let stack = try TestStack()
        defer { stack.shutdown() }
        let line = "/w:50/fn:holiday/att:1/plain/\(origin.url("/a.jpg"))@webp"

        // When warmed twice
        let first = try WarmProcess.run(stack: stack, [], input: line)
        let second = try WarmProcess.run(stack: stack, [], input: line)

        // Then it was made once, and then it was there
        #expect(first.summary.first == "made 1, already cached 0, failed 0")
        #expect(second.summary.first == "made 0, already cached 1, failed 0")
        #expect(try stack.metrics()["thumbd_stored_file_answers_total"] == 1)
        #expect(origin.requestCount("/a.jpg") == 1)
    }

    @Test func anInterruptStartsNoMoreRequestsLetsThoseInFlightFinishAndSumsUp() throws {
        // Given 40 thumbnails of an origin that takes half a second for each
        let slow = try TestOrigin()
        for number in 0..<40 { slow.serve("/\(number).jpg", .image(TestImages.jpeg(width: 80, height: 60), delay: 0.5)) }
        let stack = try TestStack()
        defer { stack.shutdown() }
        let lines = (0..<40).map { "/w:40/plain/\(slow.url("/\($0).jpg"))@png" }.joined(separator: "\n")

        // When warming two at a time is interrupted once a few were asked for
        let warm = try WarmProcess(stack: stack, ["--concurrency", "2"], input: lines)
        #expect(eventually { slow.totalRequests >= 4 })
        warm.send(SIGINT)
        let run = try warm.wait()

        // Then it stopped early with the interrupt's status, having finished what it had started
        #expect(run.status == 130, "\(run.log)")
        #expect(run.log.contains("stopping: no new requests"))
        let asked = slow.totalRequests
        #expect(asked < 40)
        #expect(run.summary.first == "made \(asked), already cached 0, failed 0")
        #expect(run.summary.dropFirst().first?.hasPrefix("\(asked) of 40 thumbnails in ") == true)
        #expect(run.summary.last == "interrupted: \(40 - asked) not asked for")
        #expect(stack.cacheFiles().count == asked)
    }

    @Test func aSecondInterruptAbandonsTheRequestsInFlight() throws {
        // Given an origin that holds every request until released
        let stuck = try TestOrigin()
        for number in 0..<10 {
            stuck.serve("/\(number).jpg", .image(TestImages.jpeg(width: 80, height: 60)))
            stuck.pause("/\(number).jpg")
        }
        let stack = try TestStack(environment: ["THUMBD_FIRST_BYTE_TIMEOUT": "30", "THUMBD_DOWNLOAD_TIMEOUT": "30"])
        defer { stack.shutdown() }
        defer { stuck.stop() }
        let lines = (0..<10).map { "/w:40/plain/\(stuck.url("/\($0).jpg"))@png" }.joined(separator: "\n")

        // When three requests wait for it and warm is interrupted
        let warm = try WarmProcess(stack: stack, ["--concurrency", "3"], input: lines)
        #expect(eventually { stuck.totalRequests == 3 })
        warm.send(SIGINT)

        // Then it says it waits for them (a second signal sent before would be one with the first)
        #expect(eventually { warm.logSoFar.contains("stopping: no new requests; 3 in flight finish") })
        #expect(warm.isRunning)

        // When interrupted again
        warm.send(SIGINT)
        let run = try warm.wait()

        // Then it gives them up, having started no others, and says so: "abandoned" is the second
        // signal's doing (waited for, they would have failed at the origin's 30 s timeouts)
        #expect(stuck.totalRequests == 3)
        #expect(run.status == 130)
        #expect(run.summary == [
            "made 0, already cached 0, failed 0",
            run.summary[1],
            "interrupted: 7 not asked for, 3 abandoned in flight",
        ])
        #expect(run.summary[1].hasPrefix("3 of 10 thumbnails in "))
        #expect(run.log.contains("abandoning the requests in flight"))
    }

    @Test func theFallbackImageStandingInForABrokenSourceCountsAsFailed() throws {
        // Given a thumbd that answers broken sources with a fallback image (with status 200)
        let fallback = NSTemporaryDirectory() + "thumbd-warm-fallback-\(UUID().uuidString).png"
        try Data(TestImages.halves(width: 40, height: 20, format: .png)).write(to: URL(fileURLWithPath: fallback))
        defer { unlink(fallback) }
        let stack = try TestStack(environment: ["THUMBD_FALLBACK_IMAGE_PATH": fallback])
        defer { stack.shutdown() }

        // When a missing source is warmed
        let missing = "/insecure/w:30/plain/\(origin.url("/missing.jpg"))@png"
        let run = try WarmProcess.run(stack: stack, ["--signed"], input: missing)

        // Then it was not made, whatever its status said
        #expect(run.status == 1)
        #expect(run.summary.first == "made 0, already cached 0, failed 1 (fallback image: 1)")
        #expect(run.log.hasPrefix("failed (fallback image) \(missing)"))
        #expect(stack.cacheFiles().isEmpty)
    }

    @Test func aServerNobodyListensOnIsAConnectionError() throws {
        // Given nginx's port with nothing behind it
        let stack = try TestStack()
        stack.shutdown()

        // When warmed there
        let run = try WarmProcess.run(stack: stack, [], input: "/w:10/plain/http://h/a.jpg")

        // Then the request failed without an answer, and said why
        #expect(run.status == 1)
        #expect(run.summary.first == "made 0, already cached 0, failed 1 (connection errors: 1)")
        #expect(run.log.hasPrefix("failed (Couldn't connect to server) /insecure/w:10/plain/http://h/a.jpg"))
    }

    /// A file in the stack's directory holding `text`.
    static func file(_ text: String, in stack: TestStack) throws -> String {
        let path = stack.directory + "/warm-list.txt"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
