/// Misses on their way to their jobs, taken in turn by one task. With a task of its own per miss,
/// a storm put 200 tasks in the executor's queue ahead of its job's own steps. The task ends with
/// the queue: an AsyncStream whose continuation is merely let go of never finishes.
final class JoinQueue: Sendable {
    private struct Join: Sendable {
        let request: ThumbnailRequest
        let documentURI: String
        let waiter: ThumbnailPipeline.ThumbnailCoalescer.Waiter
    }

    private let joins: AsyncStream<Join>.Continuation

    init(pipeline: ThumbnailPipeline) {
        let (stream, joins) = AsyncStream.makeStream(of: Join.self)
        self.joins = joins
        Task.detached {
            for await join in stream {
                await pipeline.join(join.request, documentURI: join.documentURI, waiter: join.waiter)
            }
        }
    }

    deinit {
        joins.finish()
    }

    /// `waiter` gets the outcome of the job for `request`, as `ThumbnailPipeline.join` gives it.
    func add(_ request: ThumbnailRequest, documentURI: String,
             waiter: @escaping ThumbnailPipeline.ThumbnailCoalescer.Waiter) {
        joins.yield(Join(request: request, documentURI: documentURI, waiter: waiter))
    }
}
