import ThumbCache
import ThumbFetch
import ThumbImaging
import ThumbRuntime

/// Why a job ended without a thumbnail: the failure of the stage that failed, in its own words,
/// or more work than thumbd takes on. The log gets the stage's failure as that stage wrote it.
public enum JobFailure: ThumbFailure, PoolRefusal, Equatable, CustomStringConvertible {
    case fetch(FetchFailure)
    case imaging(ImagingFailure)
    case cache(CacheFailure)
    /// More work is queued than thumbd takes on (a pool's queue, or the fetches waiting for a
    /// host); the client should retry shortly.
    case overloaded

    /// The failure of the stage that failed; the job's own for `overloaded`.
    public var stageFailure: any ThumbFailure {
        switch self {
        case .fetch(let failure): failure
        case .imaging(let failure): failure
        case .cache(let failure): failure
        case .overloaded: self
        }
    }

    public var kind: String {
        if case .overloaded = self { return "overloaded" }
        return stageFailure.kind
    }

    public var publicMessage: String {
        if case .overloaded = self { return "too busy, retry shortly" }
        return stageFailure.publicMessage
    }

    public var description: String {
        if case .overloaded = self { return "overloaded" }
        return String(describing: stageFailure)
    }

    /// The source failed, not the request: a broken, missing or refused original, or its origin.
    var fallsBack: Bool {
        switch self {
        case .fetch(.sourceNotFound), .fetch(.sourceTooLarge), .fetch(.originFailed), .fetch(.originTimeout): true
        case .imaging(.unprocessable), .imaging(.undecodable), .imaging(.overLimit): true
        case .fetch, .imaging, .cache, .overloaded: false
        }
    }
}

/// Runs a stage's call, its failure carried as the job's (`JobFailure.fetch`, `.imaging`, `.cache`).
func carried<T, StageFailure: Error>(
    _ carry: (StageFailure) -> JobFailure, _ body: () throws(StageFailure) -> T
) throws(JobFailure) -> T {
    do {
        return try body()
    } catch {
        throw carry(error)
    }
}
