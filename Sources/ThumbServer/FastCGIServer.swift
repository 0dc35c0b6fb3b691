import CFastCGI
import Dispatch
import Foundation
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import ThumbRuntime

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
        /// The listening socket systemd passed (ActivatedSocket), served instead of `address`.
        public var activatedSocket: Int32?

        public init(address: ListenAddress = .unix(path: "/run/thumbd/thumbd.sock"), workers: Int = 2 * System.coreCount,
                    socketGroup: gid_t? = nil, paramsTimeout: Double = 5,
                    activatedSocket: Int32? = nil) {
            self.address = address
            self.workers = workers
            self.socketGroup = socketGroup
            self.paramsTimeout = paramsTimeout
            self.activatedSocket = activatedSocket
        }
    }

    private let settings: Settings
    /// Passed by systemd (ActivatedSocket): it outlives thumbd, and its path is systemd's.
    private let activated: Bool
    private let gate: ConnectionGate
    private let ready = ConnectionQueue()
    private let handler: RequestHandler
    private let hangups: ClientHangupWatch
    private let logger: Logger
    /// Requests accepted and not yet answered.
    private let outstanding = Monitor(0)

    /// Opens the socket. Must run before any signal handling is installed: FCGX_Init installs
    /// its own handlers for SIGPIPE, SIGUSR1 and SIGTERM.
    public init(_ settings: Settings, handler: RequestHandler, logger: Logger) throws(SystemFailure) {
        guard FCGX_Init() == 0 else { throw .internalFailure("FCGX_Init failed") }
        let descriptors = Self.raiseDescriptorLimit()
        let listening: Int32
        if let passed = settings.activatedSocket {
            (listening, activated) = (passed, true)
        } else {
            (listening, activated) = (try ListenSocket.open(settings.address, group: settings.socketGroup), false)
        }
        gate = try ConnectionGate(listening: listening, paramsTimeout: .milliseconds(Int(settings.paramsTimeout * 1000)),
                                  maxConnections: Self.maxConnections(descriptors: descriptors), ready: ready, logger: logger)
        hangups = try ClientHangupWatch()
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
    public func run() throws(SystemFailure) {
        let workers = (0..<settings.workers).map { number in
            OwnedThread.start(.worker, number: number) { [self] in serve() }
        }
        logger.info("listening", metadata: [
            "address": activated ? "the socket systemd passed" : "\(settings.address)", "workers": "\(settings.workers)",
            "max_connections": "\(gate.maxConnections)",
        ])
        let failure = gate.run()
        // Connections whose head had arrived are answered; then the workers end.
        ready.close()
        for worker in workers { worker.join() }
        // Misses accepted before the stop are answered (by their job or their deadline) first.
        outstanding.wait { $0 == 0 ? .done(()) : .sleep() }
        if case .unix(let path) = settings.address, !activated {
            unlink(path)
        }
        if let failure { throw failure }
        logger.info("stopped")
    }

    /// Stops accepting; requests under way are finished first.
    public func stop() {
        gate.stop()
    }

    /// Takes connections whose head has arrived, one after another. Each gets a FastCGIRequest of
    /// its own, because a miss is answered later, from the job's completion, while this thread
    /// takes the next one.
    private func serve() {
        while let descriptor = ready.take() {
            guard let request = FastCGIRequest(descriptor: descriptor) else {
                gate.closed()
                continue
            }
            let incoming = IncomingRequest(
                method: request.param("REQUEST_METHOD") ?? "GET",
                requestURI: request.rawParam("REQUEST_URI") ?? [],
                documentURI: request.param("DOCUMENT_URI") ?? "",
                accept: request.param("HTTP_ACCEPT") ?? "",
                requestID: request.param("REQUEST_ID") ?? "",
                authorization: request.param("HTTP_AUTHORIZATION") ?? ""
            )
            outstanding.withLock { $0 += 1 }
            let exchange = Exchange(request, gate: gate, outstanding: outstanding)
            let watch = hangups.watch(descriptor) { exchange.end(answer: nil) }
            handler.respond(to: incoming) { [hangups] response in
                hangups.forget(watch)
                exchange.end(answer: response)
            }
        }
    }

    /// One accepted request until its answer is written or nginx has gone; then it is ended,
    /// once, by whichever thread is first.
    // Unchecked: libfcgi's FCGX_Request is not Sendable; `ended` lets one thread only touch it.
    private final class Exchange: @unchecked Sendable {
        private let request: FastCGIRequest
        private let gate: ConnectionGate
        private let outstanding: Monitor<Int>
        private let ended = Atomic(false)

        init(_ request: FastCGIRequest, gate: ConnectionGate, outstanding: Monitor<Int>) {
            self.request = request
            self.gate = gate
            self.outstanding = outstanding
        }

        /// Writes `answer`, or nothing when nginx has closed the connection (its client left).
        func end(answer: OutgoingResponse?) {
            guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
            if let answer {
                request.finish(with: answer)
            } else {
                request.abandon()
            }
            gate.closed()
            outstanding.withLock(waking: .everyone) { $0 -= 1 }
        }
    }
}
