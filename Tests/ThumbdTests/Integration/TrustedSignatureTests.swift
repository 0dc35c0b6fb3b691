import Foundation
import Testing
import ThumbdTestSupport

/// A trusted signature (TRUSTED_SIGNATURES) passes with any path: the first URL asked with it must
/// not become the picture nginx serves for every other URL that carries it.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct TrustedSignatureTests {
    static let trusted = "PartnerSignature01"

    let origin: TestOrigin
    let red: String
    let blue: String

    init() throws {
        origin = try TestOrigin()
        for colour in ["red", "blue"] {
            origin.serve("/\(colour).png", .image(TestImages.draw("xc:\(colour)", width: 80, height: 60, format: .png),
                                                  contentType: "image/png"))
        }
        red = "/\(Self.trusted)/rs:fit:20:15/plain/\(origin.url("/red.png"))@png"
        blue = "/\(Self.trusted)/rs:fit:40:30/plain/\(origin.url("/blue.png"))@png"
    }

    static func stack() throws -> TestStack {
        try TestStack(environment: TestStack.signing.merging(["THUMBD_TRUSTED_SIGNATURES": trusted]) { $1 })
    }

    /// The answer's size and whether its centre is red or blue.
    static func picture(_ response: HTTPResponse) throws -> (width: Int, colour: String) {
        let probe = try ImageProbe(response.body)
        let centre = probe.color(x: probe.width / 2, y: probe.height / 2)
        if centre.red > 200 && centre.blue < 50 { return (probe.width, "red") }
        if centre.blue > 200 && centre.red < 50 { return (probe.width, "blue") }
        return (probe.width, "other")
    }

    @Test func twoURLsWithOneTrustedSignatureGetEachTheirOwnPicture() throws {
        // Given a key and a trusted signature
        let stack = try Self.stack()
        defer { stack.shutdown() }

        // When a red picture is asked for with the trusted signature, then a blue one at another
        // size, and each again (nginx's turn, were anything stored where it looks)
        let answers = try [red, blue, red, blue].map { try stack.get($0) }

        // Then each URL gets its own picture every time, and the origin saw the blue one
        #expect(answers.map(\.status) == [200, 200, 200, 200], "\(answers.map(\.text))")
        let pictures = try answers.map(Self.picture)
        #expect(pictures.map(\.colour) == ["red", "blue", "red", "blue"])
        #expect(pictures.map(\.width) == [20, 40, 20, 40])
        #expect(origin.requestCount("/blue.png") == 1)
        // and both are stored privately, by their URIs: nothing under the signature's served name
        let files = stack.cacheFiles()
        #expect(files.filter { $0.hasPrefix("private/") }.count == 2, "\(files)")
        #expect(!files.contains { $0.hasPrefix("served/") }, "\(files)")
    }

    @Test func aFileStoredUnderATrustedSignatureIsRemovedAtStart() throws {
        // Given a red picture stored where nginx looks for the trusted signature, as an older
        // thumbd stored the first URL asked with it, while thumbd is down
        let stack = try Self.stack()
        defer { stack.shutdown() }
        stack.stopThumbd()
        let poisoned = ["served/P/\(Self.trusted).png", "served/P/\(Self.trusted).auto.webp"]
        let redPNG = TestImages.draw("xc:red", width: 20, height: 15, format: .png)
        try FileManager.default.createDirectory(atPath: stack.cacheRoot + "/served/P",
                                                withIntermediateDirectories: true)
        for path in poisoned {
            #expect(FileManager.default.createFile(atPath: stack.cacheRoot + "/" + path, contents: Data(redPNG)))
        }
        // which nginx answers for the blue URL, without thumbd
        #expect(try Self.picture(stack.get(blue)).colour == "red")

        // When thumbd starts
        try stack.startThumbd()

        // Then those files are gone, the log says so, and the blue URL gets its blue picture once
        // nginx looks again (it may keep an open file for open_file_cache_valid)
        #expect(poisoned.allSatisfy { !FileManager.default.fileExists(atPath: stack.cacheRoot + "/" + $0) })
        #expect(stack.thumbdLog.contains("removed files stored under a trusted signature"), "\(stack.thumbdLog)")
        try waitUntil("nginx answers the blue URL with a blue picture") {
            let answer = try stack.get(blue)
            guard answer.status == 200 else { return false }
            return try Self.picture(answer).colour == "blue"
        }
        #expect(origin.requestCount("/blue.png") == 1)
    }
}
