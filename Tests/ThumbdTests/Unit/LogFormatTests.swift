import Foundation
import Logging
import Testing
import ThumbdTestSupport
@testable import ThumbRuntime

/// LOG_FORMAT: each event one line, in the format asked for; JSON a real parser reads.
@Suite(.timeLimit(.minutes(1)))
struct LogFormatTests {
    static let time = timespec(tv_sec: 1_795_017_909, tv_nsec: 42_000_000)
    static let fields: Logger.Metadata = ["status": "404", "path": "/rs:fit:300/plain/http://a.example/x y.jpg", "quote": "say \"hi\"\n"]

    static func parsed(_ line: String) throws -> [String: String] {
        #expect(line.hasSuffix("\n") && line.dropLast().firstIndex(of: "\n") == nil)
        return try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
    }

    @Test func jsonIsOneObjectALineWithEveryField() throws {
        let line = LineLogHandler.line(format: .json, time: Self.time, level: .info, message: "miss", fields: Self.fields)
        let object = try Self.parsed(line)
        #expect(object == ["time": "2026-11-18T16:05:09.042Z", "level": "info", "msg": "miss", "status": "404",
                           "path": "/rs:fit:300/plain/http://a.example/x y.jpg", "quote": "say \"hi\"\n"])
    }

    @Test func gcpNamesTheSeverityAsGoogleCloudLoggingReadsIt() throws {
        let object = try Self.parsed(LineLogHandler.line(format: .gcp, time: Self.time, level: .warning, message: "origin slow", fields: [:]))
        #expect(object == ["time": "2026-11-18T16:05:09.042Z", "severity": "WARNING", "message": "origin slow"])
    }

    @Test func structuredIsLogfmtWithValuesQuotedWhereTheyMustBe() {
        let line = LineLogHandler.line(format: .structured, time: Self.time, level: .error, message: "internal failure",
                                       fields: Self.fields)
        #expect(line == #"time=2026-11-18T16:05:09.042Z level=error msg="internal failure" path="/rs:fit:300/plain/http://a.example/x y.jpg" quote="say \"hi\"\n" status=404"# + "\n")
    }

    @Test func prettyEndsWithTheMessageAsStreamLogHandlerDid() {
        let line = LineLogHandler.line(format: .pretty, time: Self.time, level: .info, message: "miss", fields: ["status": "200"])
        #expect(line == "2026-11-18T16:05:09.042Z info thumbd: status=200 miss\n")
    }

    @Test func aControlCharacterCannotEndALine() throws {
        let object = try Self.parsed(LineLogHandler.line(format: .json, time: Self.time, level: .info, message: "a\u{1}b\rc", fields: [:]))
        #expect(object["msg"] == "a\u{1}b\rc")
    }

    @Test(arguments: LogFormat.allCases)
    func aRequestValueCannotForgeALineOrDriveATerminal(format: LogFormat) {
        // Given a path as a client can send it (%0A, %0D, %1B decoded) that carries a line of its own
        let forged = "/x.jpg\n2026-11-18T16:05:09.042Z critical thumbd: forged\r\u{1B}[2J\u{9B}31m\u{7F}\t\\n"

        // When it is logged, as a value and as the message
        let line = LineLogHandler.line(format: format, time: Self.time, level: .info, message: forged,
                                       fields: ["path": "\(forged)"])

        // Then the line is one line, with no control character left in it
        #expect(line.hasSuffix("\n") && line.dropLast().unicodeScalars.allSatisfy {
            $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value)
        }, "\(line.debugDescription)")
        #expect(!line.contains("\ncritical") && line.contains(#"\n2026-11-18T16:05:09.042Z critical thumbd: forged\r\u001b[2J"#))
    }

    @Test func prettyWritesControlCharactersAsEscapesAndKeepsTheRest() {
        let line = LineLogHandler.line(format: .pretty, time: Self.time, level: .info, message: "a\nb",
                                       fields: ["path": "/x y\r\u{1B}[31m\\\"é"])
        #expect(line == #"2026-11-18T16:05:09.042Z info thumbd: path=/x y\r\u001b[31m\\"é a\nb"# + "\n")
    }
}

/// thumbd itself, told LOG_FORMAT=json, writes nothing but JSON lines.
@Suite(.blocking, .timeLimit(.minutes(2)))
struct LogFormatServiceTests {
    @Test func everyLineThumbdWritesIsJSON() throws {
        let origin = try TestOrigin()
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 64, height: 48)))
        let stack = try TestStack(environment: ["THUMBD_LOG_FORMAT": "json", "THUMBD_LOG_LEVEL": "debug"])
        defer { stack.shutdown() }
        #expect(try stack.get("/insecure/w:32/plain/\(origin.url("/photo.jpg"))@png").status == 200)
        #expect(try stack.get(stack.signed("/insecure/w:32/plain/\(origin.url("/gone.jpg"))@png")).status == 404)
        stack.stopThumbd()

        let lines = stack.thumbdLog.split(separator: "\n")
        #expect(lines.count > 2)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["msg"] is String && object?["level"] is String && object?["time"] is String, "\(line)")
        }
    }
}

/// thumbd in the default format, sent a URL whose path decodes to a newline and a line of its own.
@Suite(.blocking, .timeLimit(.minutes(2)))
struct PrettyLogInjectionTests {
    @Test func aNewlineInARequestPathStaysInsideItsLine() throws {
        // Given thumbd writing the pretty format
        let stack = try TestStack(environment: ["THUMBD_LOG_FORMAT": "pretty"])
        defer { stack.shutdown() }

        // When a client's path carries %0A and a forged critical line, and %1B
        let response = try stack.get("/insecure/nonsense:1/x%0A2026-11-18T16:05:09.042Z%20critical%20thumbd:%20forged%1B[2J.png")
        stack.stopThumbd()

        // Then the request is answered, and its line holds the forgery escaped, on no line of its own
        #expect(response.status == 404)
        let log = stack.thumbdLog
        #expect(log.contains(#"x\n2026-11-18T16:05:09.042Z critical thumbd: forged\u001b[2J.png"#), "\(log)")
        #expect(!log.split(separator: "\n").contains { $0.hasPrefix("2026-11-18T16:05:09.042Z critical") }, "\(log)")
        #expect(!log.unicodeScalars.contains { $0.value == 0x1B })
    }
}

/// One line per request thumbd answers, that ties to nginx's access log line by `$request_id`.
@Suite(.blocking, .timeLimit(.minutes(2)))
struct RequestLogLineTests {
    static func lines(_ stack: TestStack) throws -> [[String: String]] {
        try stack.thumbdLog.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String], "\($0)")
        }
    }

    @Test func aMissAJoinerAndAnErrorEachHaveALineWithNginxsRequestID() throws {
        // Given an origin that holds its answer, and thumbd writing JSON
        let origin = try TestOrigin()
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 64, height: 48)))
        origin.pause("/photo.jpg")
        let stack = try TestStack(environment: TestStack.signing.merging(["THUMBD_LOG_FORMAT": "json"]) { $1 })
        defer { stack.shutdown() }
        let path = stack.signed("/insecure/rs:fit:32:32/plain/\(origin.url("/photo.jpg"))@png")

        // When two clients ask for one thumbnail, and one asks for a source the origin lacks
        let both = Thread.runDetached { HTTPClient.getConcurrently(port: stack.port, path: path, count: 2) }
        #expect(origin.waitForRequests("/photo.jpg", count: 1, timeout: 10))
        #expect(try eventually { try stack.metrics()["thumbd_thumbnail_requests_joined_total"] == 1 })
        origin.release("/photo.jpg")
        #expect(try both.value().allSatisfy { (try? $0.get().status) == 200 })
        #expect(try stack.get(stack.signed("/insecure/w:32/plain/\(origin.url("/gone.jpg"))@png")).status == 404)
        // and one asks with a URL that expired, answered before any job
        #expect(try stack.get(stack.signed("/insecure/exp:1/w:32/plain/\(origin.url("/photo.jpg"))@png")).status >= 400)
        stack.stopThumbd()

        // Then the job's line has what an operator looks for, without the signature
        let lines = try Self.lines(stack)
        let miss = try #require(lines.first { $0["msg"] == "miss" && $0["status"] == "200" })
        #expect(miss["path"] == "/rs:fit:32:32/plain/\(origin.url("/photo.jpg"))@png")
        #expect(miss["origin"] == "127.0.0.1:\(origin.port)" && miss["type"] == "made")
        #expect(["fetch_ms", "render_ms", "total_ms", "bytes"].allSatisfy { miss[$0].flatMap(Int.init) != nil })
        let joined = try #require(lines.first { $0["msg"] == "joined" })
        #expect(joined["status"] == "200" && joined["path"] == miss["path"] && joined["origin"] == miss["origin"])
        let missing = try #require(lines.first { $0["path"]?.hasSuffix("/gone.jpg@png") == true })
        #expect(missing["status"] == "404" && missing["type"] == "source_not_found")
        let expired = try #require(lines.first { $0["path"]?.hasPrefix("/exp:1/") == true })
        #expect(expired["msg"] == "error" && expired["origin"] == miss["origin"], "\(expired)")

        // and each id is the one nginx logged for that request, and no two are the same
        let ids = [miss, joined, missing].compactMap { $0["request_id"] }
        #expect(Set(ids).count == 3 && ids.allSatisfy { $0.count == 32 })
        let access = try String(contentsOfFile: stack.directory + "/nginx-access.log", encoding: .utf8)
        for id in ids { #expect(access.contains(" \(id)\n"), "\(id)") }
    }
}
