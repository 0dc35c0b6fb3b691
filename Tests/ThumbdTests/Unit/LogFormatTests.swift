import Foundation
import Logging
import Testing
@testable import thumbd

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
        #expect(try stack.get("/insecure/w:32/plain/\(origin.url("/gone.jpg"))@png").status == 404)
        stack.stopThumbd()

        let lines = stack.thumbdLog.split(separator: "\n")
        #expect(lines.count > 2)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["msg"] is String && object?["level"] is String && object?["time"] is String, "\(line)")
        }
    }
}
