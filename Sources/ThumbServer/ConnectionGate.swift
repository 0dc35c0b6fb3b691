import Dispatch
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import ThumbRuntime

/// The one thread that accepts FastCGI connections. A connection waits here, costing a
/// descriptor and no thread, until its request head has arrived whole (FastCGIHead); then a
/// worker gets it. One that has not sent its head within the params timeout, or sends something
/// else, is closed: idle or trickling connections cannot hold the workers.
///
/// It also keeps thumbd below its descriptor limit: past `maxConnections` open connections it
/// stops accepting (they wait in the kernel's backlog) until answers close some. Every descriptor
/// gone is worse than a refused connection: curl cannot connect to origins, and libdispatch's
/// thread-pool monitor, unable to open /proc/<tid>/stat, crashes the process. An accept that fails
/// for want of descriptors or memory pauses accepting briefly; one that fails otherwise means the
/// socket is gone, and `run` returns that failure so thumbd can exit non-zero.
final class ConnectionGate: Sendable {
    private let listening: Int32
    private let paramsTimeout: Duration
    let maxConnections: Int
    private let ready: ConnectionQueue
    private let logger: Logger
    private let poll: EventPoll
    /// Written to wake the thread for `stop`.
    private let wake: (read: Int32, write: Int32)
    private let stopping = Atomic(false)
    private let open = Atomic(0)

    /// How long accepting pauses after it failed for want of descriptors or memory.
    private static let backoff = Duration.milliseconds(100)

    init(listening: Int32, paramsTimeout: Duration, maxConnections: Int, ready: ConnectionQueue,
         logger: Logger) throws(SystemFailure) {
        var pipeEnds: [Int32] = [0, 0]
        poll = try EventPoll(for: "set up accepting")
        guard pipe(&pipeEnds) == 0, pipeEnds.allSatisfy(Self.closeOnExec),
              fcntl(pipeEnds[0], F_SETFL, O_NONBLOCK) == 0, fcntl(pipeEnds[1], F_SETFL, O_NONBLOCK) == 0,
              fcntl(listening, F_SETFL, fcntl(listening, F_GETFL) | O_NONBLOCK) == 0 else {
            throw .internalFailure("cannot set up accepting: \(String(cString: strerror(errno)))")
        }
        wake = (pipeEnds[0], pipeEnds[1])
        self.listening = listening
        self.paramsTimeout = paramsTimeout
        self.maxConnections = maxConnections
        self.ready = ready
        self.logger = logger
        watch(wake.read, .readable)
        watch(listening, .readable)
    }

    /// Connections accepted and not yet closed.
    var openConnections: Int { open.load(ordering: .relaxed) }

    /// A worker or an answer closed a connection the gate accepted.
    func closed() {
        open.subtract(1, ordering: .relaxed)
    }

    /// From any thread: the gate stops accepting; `run` returns once each connection still
    /// sending its head has sent it (then a worker answers it) or reached its params timeout. A
    /// connection nginx made just before the stop would otherwise be closed unanswered: a 502
    /// for a restart that the socket kept seamless.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    /// Accepts until `stop` (and the heads under way have arrived), or until accepting fails for
    /// good: then returns why.
    func run() -> SystemFailure? {
        var waiting = Waiting()
        var accepting = true
        var resumeAt: ContinuousClock.Instant?
        let overLimit = FailureStreak()
        let acceptFailures = FailureStreak()
        var peeked = [UInt8](repeating: 0, count: FastCGIHead.maxBytes)
        var failure: SystemFailure?
        defer {
            for descriptor in waiting.descriptors { drop(descriptor) }
            close(listening)
        }
        // Accepts what waits, and says when accepting works again after it had failed.
        func acceptPending() {
            switch acceptAll(into: &waiting, peeked: &peeked) {
            case .drained:
                if acceptFailures.end() { logger.notice("accepting again") }
            case .outOfResources(let code):
                resumeAt = .now + Self.backoff
                if acceptFailures.begin() {
                    logger.warning("accept failed; retrying", metadata: ["error": "\(String(cString: strerror(code)))"])
                }
            case .failed(let code):
                failure = .internalFailure("cannot accept connections: \(String(cString: strerror(code)))")
            }
        }
        while failure == nil {
            let stopped = stopping.load(ordering: .relaxed)
            if stopped && waiting.isEmpty { break }
            let now = ContinuousClock.now
            if !stopped, let until = resumeAt, until <= now {
                resumeAt = nil
                // Out of descriptors, accept fails even with nothing waiting (Linux takes the
                // descriptor first), and then no event says the backlog is empty: try once.
                if openConnections < maxConnections { acceptPending() }
            }
            let underLimit = openConnections < maxConnections
            if underLimit, overLimit.end() { logger.notice("accepting again", metadata: ["connections": "\(openConnections)"]) }
            if !underLimit, overLimit.begin() {
                logger.warning("connection limit reached; new connections wait", metadata: ["limit": "\(maxConnections)"])
            }
            let shouldAccept = !stopped && underLimit && resumeAt == nil
            if shouldAccept != accepting {
                accepting = shouldAccept
                watch(listening, accepting ? .readable : [], modify: true)
            }
            var wakeAt = waiting.nextDeadline()
            if let until = resumeAt ?? (underLimit ? nil : now + Self.backoff) { wakeAt = min(wakeAt ?? until, until) }
            for event in poll.wait(timeoutMilliseconds: Self.milliseconds(until: wakeAt, from: now)) {
                let descriptor = Int32(truncatingIfNeeded: event.tag)
                if descriptor == wake.read {
                    var drained = [UInt8](repeating: 0, count: 64)
                    _ = read(wake.read, &drained, drained.count)
                } else if descriptor == listening {
                    // Stopped during this wait: what connects now stays in the backlog for the next thumbd.
                    guard accepting else { continue }
                    // Shut down under thumbd: accept would say EAGAIN for ever, and nothing connects.
                    guard event.events.isDisjoint(with: [.hungUp, .failed]) else {
                        failure = .internalFailure("the listening socket was shut down")
                        break
                    }
                    acceptPending()
                } else {
                    inspect(descriptor, events: event.events, in: &waiting, peeked: &peeked)
                }
            }
            for descriptor in waiting.expire(at: .now) {
                logger.debug("closed a connection that sent no whole request in time")
                drop(descriptor)
            }
        }
        return failure
    }

    private enum AcceptResult {
        /// Nothing more waits, or the limit is reached.
        case drained
        case outOfResources(Int32)
        case failed(Int32)
    }

    private func acceptAll(into waiting: inout Waiting, peeked: inout [UInt8]) -> AcceptResult {
        while openConnections < maxConnections {
            let descriptor = ClosingOnExec.accept(listening)
            guard descriptor >= 0 else {
                switch errno {
                case EAGAIN, EWOULDBLOCK: return .drained
                // This connection's own trouble (it went away, a firewall refused it): take the next.
                case EINTR, ECONNABORTED, EPROTO, EPERM, ENETDOWN, ENONET, EHOSTUNREACH, ENETUNREACH, ETIMEDOUT: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM: return .outOfResources(errno)
                case let code: return .failed(code)
                }
            }
            open.add(1, ordering: .relaxed)
            limitBlockingTime(descriptor)
            // nginx writes the head as it connects: by now it has mostly arrived whole, and the
            // connection goes to a worker without being watched at all.
            switch peekHead(descriptor, hungUp: false, peeked: &peeked) {
            case .complete?:
                ready.put(descriptor)
            case .invalid(let why)?:
                refuse(descriptor, why)
            case .incomplete?, nil:
                watch(descriptor, [.readable, .peerClosed, .edgeTriggered])
                waiting.add(descriptor, deadline: .now + paramsTimeout)
            }
        }
        return .drained
    }

    /// Edge-triggered: called once per arrival of bytes, which stay queued (peeked, not read) for
    /// libfcgi to read once the head is whole.
    private func inspect(_ descriptor: Int32, events: EventPoll.Events, in waiting: inout Waiting, peeked: inout [UInt8]) {
        guard waiting.contains(descriptor) else { return }
        let hungUp = !events.isDisjoint(with: [.peerClosed, .hungUp, .failed])
        guard let head = peekHead(descriptor, hungUp: hungUp, peeked: &peeked) else { return }
        switch head {
        case .complete:
            waiting.remove(descriptor)
            poll.unwatch(descriptor)
            ready.put(descriptor)
        case .incomplete where !hungUp:
            break
        case .incomplete:
            waiting.remove(descriptor)
            drop(descriptor)
        case .invalid(let why):
            waiting.remove(descriptor)
            refuse(descriptor, why)
        }
    }

    /// The head as far as it has arrived, peeked: the bytes stay queued for libfcgi. nil while
    /// nothing has arrived and the connection is still open.
    private func peekHead(_ descriptor: Int32, hungUp: Bool, peeked: inout [UInt8]) -> FastCGIHead? {
        let count = recv(descriptor, &peeked, peeked.count, Int32(MSG_PEEK | MSG_DONTWAIT))
        if count < 0 && (errno == EAGAIN || errno == EINTR) && !hungUp { return nil }
        return count > 0 ? FastCGIHead(peeked.prefix(count)) : .invalid("closed before its request")
    }

    private func refuse(_ descriptor: Int32, _ why: String) {
        logger.debug("closed a connection", metadata: ["reason": "\(why)"])
        drop(descriptor)
    }

    private func drop(_ descriptor: Int32) {
        close(descriptor)
        closed()
    }

    private func watch(_ descriptor: Int32, _ events: EventPoll.Events, modify: Bool = false) {
        if modify {
            poll.change(descriptor, to: events, tag: UInt64(UInt32(bitPattern: descriptor)))
        } else {
            poll.watch(descriptor, for: events, tag: UInt64(UInt32(bitPattern: descriptor)))
        }
    }

    /// A thread blocked on the connection gives up after a while: an answer written to a client
    /// that does not read (nginx reads as fast as it can), and, should libfcgi ever want more of
    /// the head than the gate saw, its read.
    private func limitBlockingTime(_ descriptor: Int32) {
        let (seconds, attoseconds) = paramsTimeout.components
        var receive = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        var send = timeval(tv_sec: 30, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &receive, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &send, socklen_t(MemoryLayout<timeval>.size))
    }

    private static func closeOnExec(_ descriptor: Int32) -> Bool {
        fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0
    }

    private static func milliseconds(until instant: ContinuousClock.Instant?, from now: ContinuousClock.Instant) -> Int32 {
        guard let instant else { return -1 }
        return (instant - now).pollTimeout
    }

    /// The connections still sending their head, with their deadlines in the order they were
    /// accepted: one timeout for all, so the oldest entry still waiting is the next to expire.
    /// Entries of connections that left early are skipped when they reach the front.
    private struct Waiting {
        private var deadlines: [Int32: ContinuousClock.Instant] = [:]
        private var order: [(descriptor: Int32, deadline: ContinuousClock.Instant)] = []
        private var start = 0

        var descriptors: Dictionary<Int32, ContinuousClock.Instant>.Keys { deadlines.keys }

        var isEmpty: Bool { deadlines.isEmpty }

        func contains(_ descriptor: Int32) -> Bool { deadlines[descriptor] != nil }

        mutating func add(_ descriptor: Int32, deadline: ContinuousClock.Instant) {
            deadlines[descriptor] = deadline
            order.append((descriptor, deadline))
        }

        mutating func remove(_ descriptor: Int32) {
            deadlines[descriptor] = nil
        }

        mutating func nextDeadline() -> ContinuousClock.Instant? {
            skipDeparted()
            return start < order.count ? order[start].deadline : nil
        }

        /// Removes and returns those whose deadline has passed.
        mutating func expire(at now: ContinuousClock.Instant) -> [Int32] {
            var expired: [Int32] = []
            skipDeparted()
            while start < order.count, order[start].deadline <= now {
                expired.append(order[start].descriptor)
                deadlines[order[start].descriptor] = nil
                start += 1
                skipDeparted()
            }
            return expired
        }

        private mutating func skipDeparted() {
            while start < order.count, deadlines[order[start].descriptor] != order[start].deadline { start += 1 }
            if start > 1024 && start * 2 > order.count {
                order.removeFirst(start)
                start = 0
            }
        }
    }
}
