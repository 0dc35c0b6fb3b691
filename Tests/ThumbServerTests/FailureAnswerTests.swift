import Logging
import Testing
import ThumbCache
import ThumbFetch
import ThumbImaging
import ThumbJobs
import ThumbRequest
import ThumbRuntime
@testable import ThumbServer

/// Each stage declares its failures; the server alone answers them. The table is docs/operations.md's
/// and DESIGN's: a kind, a status, a public sentence, whichever stage failed and however a job
/// carried the failure.
@Suite(.timeLimit(.minutes(1)))
struct FailureAnswerTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let failure: any ThumbFailure
        let kind: String
        let status: Int
        let message: String

        var testDescription: String { "\(failure)" }
    }

    static let rows: [Row] = [
        Row(failure: RequestFailure.invalidURL("x"), kind: "invalid_url", status: 404, message: "invalid URL: x"),
        Row(failure: RequestFailure.badRequest("x"), kind: "bad_request", status: 400, message: "bad request: x"),
        Row(failure: RequestFailure.forbidden("x"), kind: "forbidden", status: 403, message: "forbidden: x"),
        Row(failure: RequestFailure.expired, kind: "expired", status: 404, message: "URL expired"),
        Row(failure: FetchFailure.sourceNotAllowed("x"), kind: "source_not_allowed", status: 403,
            message: "forbidden: source is not allowed"),
        Row(failure: JobFailure.fetch(.sourceNotFound), kind: "source_not_found", status: 404, message: "source not found"),
        Row(failure: JobFailure.fetch(.sourceTooLarge(limit: 10)), kind: "source_too_large", status: 413,
            message: "source is larger than the limit of 10 bytes"),
        Row(failure: JobFailure.fetch(.originFailed("x")), kind: "origin_failed", status: 502,
            message: "origin failed to deliver the source"),
        Row(failure: JobFailure.fetch(.originTimeout), kind: "origin_timeout", status: 504, message: "origin timed out"),
        Row(failure: JobFailure.imaging(.unprocessable("x")), kind: "unprocessable", status: 422,
            message: "cannot process source: x"),
        Row(failure: JobFailure.imaging(.undecodable("x")), kind: "undecodable", status: 422,
            message: "cannot process source: the image cannot be decoded"),
        Row(failure: JobFailure.imaging(.overLimit("x")), kind: "over_limit", status: 422, message: "cannot process source: x"),
        Row(failure: JobFailure.imaging(.internalFailure("x")), kind: "internal", status: 500, message: "internal error"),
        Row(failure: JobFailure.cache(.internalFailure("x")), kind: "internal", status: 500, message: "internal error"),
        Row(failure: CacheFailure.request(.invalidURL("x")), kind: "invalid_url", status: 404, message: "invalid URL: x"),
        Row(failure: JobFailure.overloaded, kind: "overloaded", status: 503, message: "too busy, retry shortly"),
        Row(failure: ServerFailure.deadlineExceeded, kind: "deadline_exceeded", status: 504,
            message: "thumbnail not ready in time, retry shortly"),
        Row(failure: SystemFailure.internalFailure("x"), kind: "internal", status: 500, message: "internal error"),
    ]

    @Test(arguments: rows)
    func eachFailureIsAnsweredWithItsStatusAndSentence(_ row: Row) {
        // Given a stage's failure, as the stage or a job carries it
        // When the server answers it
        let response = OutgoingResponse.error(row.failure)

        // Then the client gets its status and sentence, and the log and the metrics its kind
        #expect(response.status == row.status)
        #expect(String(decoding: response.body, as: UTF8.self) == row.message + "\n")
        #expect(row.failure.kind == row.kind)
    }

    @Test func aJobPrintsTheFailureOfTheStageThatFailedForTheLog() {
        // Given a fetch failure carried by a job
        let carried = JobFailure.fetch(.originFailed("curl: connection refused"))

        // When it is logged, then the line reads as the fetch wrote it
        #expect("\(carried)" == "\(FetchFailure.originFailed("curl: connection refused"))")
    }

    @Test func onlyARefusedSourceIsLoggedAsANoticeAmongTheClientsMistakes() {
        // Given a refused source, however carried, and a client's mistake
        // When the server weighs their log lines, then the refusal is a notice, the mistake info,
        // and thumbd's own failure a warning
        #expect(FailureAnswer(for: FetchFailure.sourceNotAllowed("x")).logLevel == .notice)
        #expect(FailureAnswer(for: JobFailure.fetch(.sourceNotAllowed("x"))).logLevel == .notice)
        #expect(FailureAnswer(for: RequestFailure.invalidURL("x")).logLevel == .info)
        #expect(FailureAnswer(for: JobFailure.cache(.internalFailure("x"))).logLevel == .warning)
    }
}
