import Testing
import ThumbdTestSupport
@testable import ThumbServer

/// When a connection's request head has arrived whole, from the bytes alone.
@Suite(.timeLimit(.minutes(2)))
struct FastCGIHeadTests {
    static let request = FastCGIRecords.get("/insecure/w:32/plain/http://origin.example/photo.jpg@png")

    @Test func aWholeHeadIsCompleteAndEveryPartOfItIsNot() {
        let end = Self.request.count - 8  // the empty STDIN record after the head is not needed
        #expect(FastCGIHead(Self.request) == .complete)
        #expect(FastCGIHead(Self.request.prefix(end)) == .complete)
        for length in 0..<end {
            #expect(FastCGIHead(Self.request.prefix(length)) == .incomplete, "\(length) bytes")
        }
    }

    @Test(arguments: [
        ("version 2", [2] + Array(request.dropFirst())),
        ("a parameters record first", FastCGIRecords.params(["A": "b"]) + FastCGIRecords.record(4, [])),
        ("a management record first", FastCGIRecords.record(9, []) + request),
        ("the authorizer role", FastCGIRecords.record(1, [0, 2, 0, 0, 0, 0, 0, 0]) + Array(request.dropFirst(16))),
        ("a body before the parameters end", FastCGIRecords.begin() + FastCGIRecords.record(5, [1])),
        ("parameters past the limit", FastCGIRecords.begin()
            + Array(repeating: FastCGIRecords.params(["X": String(repeating: "y", count: 1000)]), count: 70).joined()),
    ] as [(String, [UInt8])])
    func whatNginxNeverSendsIsRefused(_ what: String, bytes: [UInt8]) {
        guard case .invalid = FastCGIHead(bytes) else {
            Issue.record("\(what): \(FastCGIHead(bytes))")
            return
        }
    }
}
