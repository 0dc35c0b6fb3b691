import CFastCGI
import Dispatch
import Foundation
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The worker pool: N threads thumbd owns, each blocked in FCGX_Accept_r on one shared socket.
/// A worker parses its request and answers at once what needs no job; a miss is answered later
/// by its job, and the worker accepts the next request meanwhile, so however slow an origin is,
/// workers stay free. Blocking work (curl, ImageMagick, disk) never runs on Swift's cooperative pool.
public final class FastCGIServer: Sendable {
    private let listenDescriptor: Int32
    private let address: ListenAddress
    private let workerCount: Int
    private let handler: RequestHandler
    private let logger: Logger
    /// Requests accepted and not yet answered.
    private let outstanding = DispatchGroup()
    private let stopping = Atomic(false)
    private let acceptFailures = FailureStreak()

    /// Opens the socket. Must run before any signal handling is installed: FCGX_Init installs
    /// its own handlers for SIGPIPE, SIGUSR1 and SIGTERM.
    public init(address: ListenAddress, workers: Int, handler: RequestHandler, logger: Logger) throws(ThumbError) {
        guard FCGX_Init() == 0 else { throw .internalFailure("FCGX_Init failed") }
        Self.raiseDescriptorLimit()
        if case .unix(let path) = address {
            unlink(path)  // a stale socket from a crashed run would make the bind fail
        }
        let descriptor = FCGX_OpenSocket(address.libfcgiName, 1024)
        guard descriptor >= 0 else { throw .internalFailure("cannot listen on \(address)") }
        if case .unix(let path) = address {
            // nginx's workers run as another user (www-data or nobody).
            guard chmod(path, 0o666) == 0 else { throw .internalFailure("cannot chmod socket \(path)") }
        }
        listenDescriptor = descriptor
        self.address = address
        workerCount = workers
        self.handler = handler
        self.logger = logger
    }

    /// Each miss waiting for its job holds nginx's connection open, so thumbd may hold many more
    /// descriptors than workers: the soft limit goes up to the hard one.
    private static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// Runs the pool until `stop` is called and every worker has finished its request.
    public func run() {
        let finished = DispatchGroup()
        for index in 0..<workerCount {
            finished.enter()
            let thread = Thread { [self] in
                serve()
                finished.leave()
            }
            thread.name = "thumbd-worker-\(index)"
            thread.stackSize = 8 << 20  // ImageMagick's decoders recurse deeper than the default
            thread.start()
        }
        logger.info("listening", metadata: ["address": "\(address)", "workers": "\(workerCount)"])
        finished.wait()
        // Misses accepted before the stop are answered (by their job or their deadline) first.
        outstanding.wait()
        if case .unix(let path) = address {
            unlink(path)
        }
        logger.info("stopped")
    }

    /// Wakes every worker out of accept; requests under way are finished first.
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        FCGX_ShutdownPending()
        shutdown(listenDescriptor, Int32(SHUT_RDWR))
    }

    /// Accepts requests one after another. Each gets a FCGX_Request of its own, because a miss
    /// is answered later, from the job's completion, while this thread accepts the next one.
    private func serve() {
        while true {
            let request = UnsafeMutablePointer<FCGX_Request>.allocate(capacity: 1)
            FCGX_InitRequest(request, listenDescriptor, 0)
            guard FCGX_Accept_r(request) >= 0 else {
                FCGX_Free(request, 1)
                request.deallocate()
                if stopping.load(ordering: .relaxed) { return }
                // Out of descriptors (EMFILE) or memory: transient, since answers keep closing
                // connections. The worker waits a moment and accepts again; it never retires.
                if acceptFailures.begin() {
                    logger.warning("accept failed; retrying", metadata: ["error": "\(String(cString: strerror(errno)))"])
                }
                usleep(100_000)
                continue
            }
            if acceptFailures.end() { logger.notice("accepting again") }
            let incoming = IncomingRequest(
                method: Self.param("REQUEST_METHOD", request) ?? "GET",
                requestURI: Self.rawParam("REQUEST_URI", request) ?? [],
                documentURI: Self.param("DOCUMENT_URI", request) ?? "",
                accept: Self.param("HTTP_ACCEPT", request) ?? ""
            )
            outstanding.enter()
            let exchange = Exchange(request)
            handler.respond(to: incoming) { [outstanding] response in
                exchange.finish(with: response)
                outstanding.leave()
            }
        }
    }

    /// One accepted request until its answer is written; then the connection is closed and the
    /// request freed. Answered exactly once (ReplyOnce), from whichever thread has the answer.
    private final class Exchange: @unchecked Sendable {
        private let request: UnsafeMutablePointer<FCGX_Request>

        init(_ request: UnsafeMutablePointer<FCGX_Request>) {
            self.request = request
        }

        func finish(with response: OutgoingResponse) {
            FastCGIServer.write(response, to: request.pointee.out)
            FCGX_Finish_r(request)
            request.deallocate()
        }
    }

    private static func param(_ name: String, _ request: UnsafeMutablePointer<FCGX_Request>) -> String? {
        FCGX_GetParam(name, request.pointee.envp).map { String(cString: $0) }
    }

    /// The bytes as sent: a String would turn bytes that are not UTF-8 into U+FFFD.
    private static func rawParam(_ name: String, _ request: UnsafeMutablePointer<FCGX_Request>) -> [UInt8]? {
        FCGX_GetParam(name, request.pointee.envp).map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
    }

    /// A client that has gone away makes the writes fail with EPIPE; nothing else to do then.
    /// The status goes without a reason phrase: nginx adds its own for the code.
    fileprivate static func write(_ response: OutgoingResponse, to stream: UnsafeMutablePointer<FCGX_Stream>?) {
        var head = "Status: \(response.status)\r\n"
        for header in response.headers {
            head += "\(header.name): \(header.value)\r\n"
        }
        head += "Content-Length: \(response.body.count)\r\n\r\n"
        var headBytes = Array(head.utf8)
        headBytes.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { _ = FCGX_PutStr($0.baseAddress, Int32($0.count), stream) }
        }
        response.body.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            _ = FCGX_PutStr(base.assumingMemoryBound(to: CChar.self), Int32(buffer.count), stream)
        }
    }
}
