import Foundation
import Testing
import ThumbdTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What reaches thumbd's socket is not always nginx, nor what nginx normalised: the socket is for
/// nginx's group alone, a connection holds no worker until its request has arrived whole, and
/// thumbd holds its own line on the paths it writes.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct FastCGISocketTests {
    /// A request straight to thumbd's socket with libfcgi's cgi-fcgi, its parameters as given.
    static func fastCGI(_ stack: TestStack, requestURI: String, documentURI: String) throws -> String {
        let finished = try ProcessRunner.run("/usr/bin/env", [
            "-i", "REQUEST_METHOD=GET", "REQUEST_URI=\(requestURI)", "DOCUMENT_URI=\(documentURI)",
            "/usr/bin/cgi-fcgi", "-bind", "-connect", stack.sockets[0],
        ])
        return finished.output
    }

    @Test func dotSegmentsNeverLeadAThumbnailOutOfTheCacheRoot() throws {
        // Given an origin, and a path whose dot segments climb from the source's directory to
        // beside the cache root, sent with a DOCUMENT_URI as raw as its REQUEST_URI
        let origin = try TestOrigin()
        for path in ["/escaped/photo.jpg", "/../../../../../../escaped/photo.jpg"] {
            origin.serve(path, .image(TestImages.jpeg(width: 64, height: 48)))
        }
        let stack = try TestStack()
        let climbing = "/insecure/w:32/plain/http://127.0.0.1:\(origin.port)/../../../../../../escaped/photo.jpg@png"

        // When it is asked for as written and with its dots percent-encoded
        for requestURI in [climbing, climbing.replacingOccurrences(of: "..", with: "%2e%2e")] {
            let answer = try Self.fastCGI(stack, requestURI: requestURI, documentURI: climbing)

            // Then thumbd refuses it, and writes nothing outside the cache root
            #expect(answer.hasPrefix("Status: 400"), "\(requestURI): \(answer)")
        }
        #expect(!FileManager.default.fileExists(atPath: stack.directory + "/escaped"))
        #expect(origin.totalRequests == 0)
    }

    @Test func onlyNginxsGroupMayConnect() throws {
        // Given thumbd, told the group nginx's workers run in
        let origin = try TestOrigin()
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 64, height: 48)))
        let stack = try TestStack()

        // Then its socket is 0660 in that group, with nothing left beside it
        var info = stat()
        #expect(stat(stack.sockets[0], &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
        #expect(info.st_gid == TestStack.nginxWorkerGroup)
        let beside = try FileManager.default.contentsOfDirectory(atPath: stack.directory)
        #expect(!beside.contains { $0.hasPrefix(".thumbd-socket-") })
        // and another local user cannot connect to ask for the metrics
        let intruder = try ProcessRunner.run("/usr/bin/setpriv", [
            "--reuid=daemon", "--regid=daemon", "--clear-groups", "/usr/bin/env", "-i", "REQUEST_METHOD=GET",
            "REQUEST_URI=/_thumbd/metrics", "DOCUMENT_URI=/_thumbd/metrics", "HTTP_AUTHORIZATION=Bearer \(TestStack.metricsToken)",
            "/usr/bin/cgi-fcgi", "-bind", "-connect",
            stack.sockets[0],
        ])
        #expect(!intruder.output.contains("thumbd_requests_total"), "\(intruder.output)")
        #expect(intruder.status != 0)
        // while nginx's workers, in the group, are served
        #expect(try stack.get("/insecure/w:32/plain/\(origin.url("/photo.jpg"))@png").status == 200)
    }

    @Test func connectionsThatNeverFinishTheirRequestHoldNoWorker() throws {
        // Given thumbd with 2 workers and 1 s for a connection to send its parameters
        let origin = try TestOrigin()
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 64, height: 48)))
        let stack = try TestStack(environment: ["THUMBD_WORKERS": "2", "THUMBD_PARAMS_TIMEOUT": "1"])
        let request = FastCGIRecords.get("/insecure/w:40/plain/\(origin.url("/photo.jpg"))@png")

        // When more clients than workers connect and stall: silent, half a header, parameters
        // without their end, and one trickling its request a byte every 200 ms
        var stalled: [FastCGIConnection] = []
        for part in [[], Array(request.prefix(5)), Array(request.prefix(request.count - 16))] {
            for _ in 0..<3 {
                let connection = try FastCGIConnection(stack.sockets[0])
                connection.send(part)
                stalled.append(connection)
            }
        }
        let trickling = try FastCGIConnection(stack.sockets[0])
        let trickler = Thread {
            for byte in request {
                trickling.send([byte])
                usleep(200_000)  // the pace of a slow client, the behaviour under test: not a wait for an event
            }
        }
        trickler.start()

        // Then nginx's requests are answered meanwhile
        for width in [32, 33, 34] {
            let response = try HTTPClient.get(port: stack.port, path: "/insecure/w:\(width)/plain/\(origin.url("/photo.jpg"))@png",
                                              timeout: 15)
            #expect(response.status == 200)
        }
        // and thumbd closes every stalled connection once its second is up (10 s allowed), answering none
        for connection in stalled + [trickling] {
            #expect(connection.readUntilClosed(timeout: 10) == [])
        }
    }

    @Test func aRequestUnderWayWhenThumbdIsStoppedIsAnswered() throws {
        // Given thumbd, and a connection it has accepted that has sent half its request, as one
        // of nginx's may have when a restart begins (a request on another connection answered
        // after it was made says the gate has taken it)
        let origin = try TestOrigin()
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 64, height: 48)))
        let stack = try TestStack(environment: ["THUMBD_PARAMS_TIMEOUT": "30"])
        let request = FastCGIRecords.get("/insecure/w:40/plain/\(origin.url("/photo.jpg"))@png")
        let halfway = try FastCGIConnection(stack.sockets[0])
        halfway.send(Array(request.prefix(request.count / 2)))
        let health = try FastCGIConnection(stack.sockets[0])
        health.send(FastCGIRecords.get("/health"))
        #expect(health.readUntilClosed(timeout: 10).map { String(decoding: $0, as: UTF8.self) }?.contains("Status: 200") == true)

        // When thumbd is told to stop, and the rest of the request arrives after it took the signal
        stack.signalThumbd(SIGTERM)
        try waitUntil("thumbd logs that it is stopping") { stack.thumbdLog.contains("stopping") }
        halfway.send(Array(request.dropFirst(request.count / 2)))

        // Then that request is answered before thumbd ends
        let answer = try #require(halfway.readUntilClosed(timeout: 20))
        #expect(String(decoding: answer, as: UTF8.self).contains("Status: 200"), "\(answer.count) bytes")
        #expect(stack.thumbdExitStatus(within: 30) == 0)
    }

    @Test func aConnectionAskedToBeKeptIsClosedAfterItsAnswer() throws {
        // Given thumbd, which answers one request per connection
        let stack = try TestStack()

        // When a client asks it to keep the connection open (FCGI_KEEP_CONN)
        let connection = try FastCGIConnection(stack.sockets[0])
        connection.send(FastCGIRecords.get("/health", flags: 1))

        // Then the answer comes, and the connection is closed after it instead of held for ever
        let answer = try #require(connection.readUntilClosed(timeout: 10))
        #expect(String(decoding: answer, as: UTF8.self).contains("Status: 200"))
    }
}
