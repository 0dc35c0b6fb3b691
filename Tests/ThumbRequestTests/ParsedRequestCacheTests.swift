import Testing
@testable import ThumbRequest
@testable import ThumbRuntime

/// A path parsed once is not parsed again while it is among the last ones; what failed is parsed
/// again every time, and the oldest path goes first.
@Suite(.timeLimit(.minutes(2)))
struct ParsedRequestCacheTests {
    /// Parses with the real parser and counts how often it was asked.
    final class CountingParser: @unchecked Sendable {
        private(set) var calls: [String] = []

        func parse(_ requestURI: [UInt8]) throws(RequestFailure) -> ThumbnailRequest {
            calls.append(String(decoding: requestURI, as: UTF8.self))
            return try RequestURITests.keyed.parse(requestURI: requestURI)
        }
    }

    static func signed(_ path: String) -> [UInt8] {
        let signature = SignatureVerifier(pairs: [SignatureTests.testKey]).signature(for: Array(path.utf8), with: SignatureTests.testKey)
        return Array("/\(signature)\(path)".utf8)
    }

    @Test func aPathParsedOnceIsRememberedWithItsRequest() throws {
        // Given a path parsed once
        let recent = ParsedRequestCache(capacity: 4)
        let parser = CountingParser()
        let path = Self.signed("/rs:fill:300:200/plain/http://h/a.jpg@webp")
        let first = try recent.request(for: path, parse: parser.parse)

        // When it comes again, 100 times
        let again = try (0..<100).map { _ throws(RequestFailure) in try recent.request(for: path, parse: parser.parse) }

        // Then it was parsed once, and every answer is that request
        #expect(parser.calls.count == 1)
        #expect(again.allSatisfy { $0 == first })
        #expect(first.options.width == 300 && first.options.format == .webp)
    }

    @Test func aPathThatFailedIsParsedAgainEachTime() {
        // Given a path whose signature is wrong
        let recent = ParsedRequestCache(capacity: 4)
        let parser = CountingParser()
        let forged = Array("/oWaL7QoW5TsgbuiS9-5-DI8S3Ibbo1gdB2SteJh3a20/rs:fill:300:200/plain/http://h/a.jpg".utf8)

        // When it comes three times
        for _ in 0..<3 {
            #expect(throws: RequestFailure.self) { try recent.request(for: forged, parse: parser.parse) }
        }

        // Then each time it was parsed, and refused
        #expect(parser.calls.count == 3)
    }

    @Test func theOldestPathGoesFirst() throws {
        // Given room for two paths, and three parsed in turn
        let recent = ParsedRequestCache(capacity: 2)
        let parser = CountingParser()
        let paths = ["a", "b", "c"].map { Self.signed("/w:10/plain/http://h/\($0).jpg") }
        for path in paths { _ = try recent.request(for: path, parse: parser.parse) }

        // When the last two and then the first come again
        _ = try recent.request(for: paths[1], parse: parser.parse)
        _ = try recent.request(for: paths[2], parse: parser.parse)
        _ = try recent.request(for: paths[0], parse: parser.parse)

        // Then only the first, which the third pushed out, was parsed again
        #expect(parser.calls.count == 4)
        #expect(parser.calls.last == String(decoding: paths[0], as: UTF8.self))
    }
}
