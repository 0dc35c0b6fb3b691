import CFastCGI
import Dispatch
import Foundation
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The worker pool: N threads thumbd owns, fed by the connection gate with connections whose
/// request head has arrived whole. A worker parses its request and answers at once what needs no
/// job; a miss is answered later by its job, and the worker takes the next connection meanwhile,
/// so however slow an origin is, workers stay free. Blocking work (curl, ImageMagick, disk) never
/// runs on Swift's cooperative pool.
public final class FastCGIServer: Sendable {
    public struct Settings: Sendable {
        public var address: ListenAddress
        public var workers: Int
        /// The group nginx's workers run in, for the unix socket (0660); nil: thumbd's own group.
        public var socketGroup: gid_t?
        /// Seconds a connection has to send its whole request head.
        public var paramsTimeout: Double

        public init(address: ListenAddress, workers: Int, socketGroup: gid_t? = nil, paramsTimeout: Double = 5) {
            self.address = address
            self.workers = workers
            self.socketGroup = socketGroup
            self.paramsTimeout = paramsTimeout
        }
    }

    private let settings: Settings
    private let gate: ConnectionGate
    private let ready = ConnectionQueue()
    private let handler: RequestHandler
    private let departures: Departures
    private let logger: Logger
    /// Requests accepted and not yet answered.
    private let outstanding = DispatchGroup()

    /// Opens the socket. Must run before any signal handling is installed: FCGX_Init installs
    /// its own handlers for SIGPIPE, SIGUSR1 and SIGTERM.
    public init(_ settings: Settings, handler: RequestHandler, logger: Logger) throws(ThumbError) {
        guard FCGX_Init() == 0 else { throw .internalFailure("FCGX_Init failed") }
        let descriptors = Self.raiseDescriptorLimit()
        let listening = try ListenSocket.open(settings.address, group: settings.socketGroup)
        gate = try ConnectionGate(listening: listening, paramsTimeout: .milliseconds(Int(settings.paramsTimeout * 1000)),
                                  maxConnections: Self.maxConnections(descriptors: descriptors), ready: ready, logger: logger)
        departures = try Departures()
        self.settings = settings
        self.handler = handler
        self.logger = logger
    }

    /// Each miss waiting for its job holds nginx's connection open, so thumbd may hold many more
    /// descriptors than workers: the soft limit goes up to the hard one. Returns the limit.
    private static func raiseDescriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// Connections thumbd holds at most: its descriptor limit less a quarter (at least 256) for
    /// what else needs descriptors (origin connections, cache files, the index, logs). The spare
    /// ones matter: libdispatch's pool monitor opens /proc/<tid>/stat every second, and ends the
    /// process when it cannot.
    static func maxConnections(descriptors: Int) -> Int {
        max(16, descriptors - max(256, descriptors / 4))
    }

    /// Runs the gate and the workers until `stop` is called and every request taken is answered.
    /// Throws when accepting failed for good (the socket is gone): thumbd cannot serve.
    public func run() throws(ThumbError) {
        let finished = DispatchGroup()
        for index in 0..<settings.workers {
            finished.enter()
            // ImageMagick's decoders recurse deeper than the default stack allows.
            NamedThread.start("thumbd-worker-\(index)", stackSize: 8 << 20) { [self] in
                serve()
                finished.leave()
            }
        }
        logger.info("listening", metadata: [
            "address": "\(settings.address)", "workers": "\(settings.workers)", "max_connections": "\(gate.maxConnections)",
        ])
        let failure = gate.run()
        // Connections whose head had arrived are answered; then the workers end.
        ready.close()
        finished.wait()
        // Misses accepted before the stop are answered (by their job or their deadline) first.
        outstanding.wait()
        if case .unix(let path) = settings.address {
            unlink(path)
        }
        if let failure { throw failure }
        logger.info("stopped")
    }

    /// Stops accepting; requests under way are finished first.
    public func stop() {
        gate.stop()
    }

    /// Takes connections whose head has arrived, one after another. Each gets a FCGX_Request of
    /// its own, because a miss is answered later, from the job's completion, while this thread
    /// takes the next one.
    private func serve() {
        while let descriptor = ready.take() {
            let request = UnsafeMutablePointer<FCGX_Request>.allocate(capacity: 1)
            // No listening socket: libfcgi reads the connection it is given, never accepts one itself.
            FCGX_InitRequest(request, -1, 0)
            request.pointee.ipcFd = descriptor
            // FCGX_Accept_r first finishes the request it is given, which would close the connection.
            request.pointee.keepConnection = 1
            guard FCGX_Accept_r(request) >= 0 else {
                // libfcgi refused the head (and closed the connection, if it got that far).
                request.pointee.detached = 1
                FCGX_Free(request, 1)
                request.deallocate()
                gate.closed()
                continue
            }
            let incoming = IncomingRequest(
                method: Self.param("REQUEST_METHOD", request) ?? "GET",
                requestURI: Self.rawParam("REQUEST_URI", request) ?? [],
                documentURI: Self.param("DOCUMENT_URI", request) ?? "",
                accept: Self.param("HTTP_ACCEPT", request) ?? ""
            )
            outstanding.enter()
            let exchange = Exchange(request, gate: gate, outstanding: outstanding)
            let watch = departures.watch(descriptor) { exchange.end(answer: nil) }
            handler.respond(to: incoming) { [departures] response in
                departures.forget(watch)
                exchange.end(answer: response)
            }
        }
    }

    /// One accepted request until its answer is written or nginx has gone; then the connection is
    /// closed and the request freed, once, by whichever thread is first.
    private final class Exchange: @unchecked Sendable {
        private let request: UnsafeMutablePointer<FCGX_Request>
        private let gate: ConnectionGate
        private let outstanding: DispatchGroup
        private let ended = Atomic(false)

        init(_ request: UnsafeMutablePointer<FCGX_Request>, gate: ConnectionGate, outstanding: DispatchGroup) {
            self.request = request
            self.gate = gate
            self.outstanding = outstanding
        }

        /// Writes `answer`, or nothing when nginx has closed the connection (its client left).
        func end(answer: OutgoingResponse?) {
            guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
            if let answer {
                finish(with: answer)
            } else {
                request.pointee.detached = 1
                FCGX_Free(request, 1)
            }
            request.deallocate()
            gate.closed()
            outstanding.leave()
        }

        private func finish(with response: OutgoingResponse) {
            FastCGIServer.write(response, to: request.pointee.out)
            // Sends what is buffered and the end of the request.
            FCGX_FClose(request.pointee.err)
            FCGX_FClose(request.pointee.out)
            // Closing with bytes unread would reset the connection: read what the client sent after
            // its head (nginx's empty STDIN record), without waiting. libfcgi would wait up to 2 s
            // per read for the client to close its end, holding this thread (detached skips that).
            Self.discardWhatArrived(request.pointee.ipcFd)
            request.pointee.detached = 1
            // One request per connection: one that asked to keep it open would never be closed.
            request.pointee.keepConnection = 0
            FCGX_Finish_r(request)
        }

        private static func discardWhatArrived(_ descriptor: Int32) {
            // On the stack: every answer passes here.
            withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 1) { buffer in
                var reads = 0
                while reads < 16, recv(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT)) > 0 { reads += 1 }
            }
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
