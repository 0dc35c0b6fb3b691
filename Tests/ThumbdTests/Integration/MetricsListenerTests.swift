import Foundation
import Logging
import Testing
import ThumbdTestSupport
@testable import ThumbServer

/// PROMETHEUS_BIND's listener serves its connections at once: clients that connect and say
/// nothing delay no scrape, and a flood of them closes the oldest, not the scrape.
@Suite(.blocking, .timeLimit(.minutes(2)))
struct MetricsListenerTests {
    /// A listener on a free port of 127.0.0.1 whose connections may stay silent a minute, far
    /// longer than any wait below: a scrape answered while they are open was not queued behind them.
    static func listener() throws -> Int {
        let port = try FreePort.next()
        try MetricsListener(.tcp(host: "127.0.0.1", port: port), deadline: .seconds(60), logger: Logger(label: "test")) {
            "thumbd_test_total 1\n"
        }.start()
        return port
    }

    /// Whether the listener still holds `socket` open: nothing to read yet, and not closed.
    static func isOpen(_ socket: Int32) -> Bool {
        var byte: UInt8 = 0
        return recv(socket, &byte, 1, Int32(MSG_DONTWAIT)) < 0 && errno == EAGAIN
    }

    /// Whether the listener closes `socket` within `seconds`.
    static func isClosed(_ socket: Int32, within seconds: Int32) -> Bool {
        var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        var byte: UInt8 = 0
        return poll(&entry, 1, seconds * 1000) == 1 && recv(socket, &byte, 1, Int32(MSG_DONTWAIT)) == 0
    }

    @Test func threeSilentConnectionsDelayNoScrape() throws {
        // Given three clients that connect and say nothing
        let port = try Self.listener()
        let silent = try (0..<3).map { _ in try HTTPClient.openSocket(port: port, timeout: 30) }
        defer { silent.forEach { close($0) } }

        // When Prometheus scrapes
        let scrape = try HTTPClient.get(port: port, path: "/metrics", timeout: 20)

        // Then it gets the metrics while the silent ones are still open: it waited for none of them
        #expect(scrape.status == 200 && scrape.text == "thumbd_test_total 1\n")
        #expect(silent.allSatisfy(Self.isOpen))
    }

    @Test func aFloodOfSilentConnectionsClosesTheOldestAndTheScrapeIsAnswered() throws {
        // Given as many silent clients as the listener keeps open at once
        let port = try Self.listener()
        let silent = try (0..<MetricsListener.maxConnections).map { _ in try HTTPClient.openSocket(port: port, timeout: 30) }
        defer { silent.forEach { close($0) } }
        try waitUntil("the listener took every silent connection") {
            try HTTPClient.get(port: port, path: "/", timeout: 20).status == 404
        }

        // When one more scrapes
        let scrape = try HTTPClient.get(port: port, path: "/metrics", timeout: 20)

        // Then it is answered, and the oldest silent clients were closed to make room for it and
        // for the request that checked the listener had taken them
        #expect(scrape.status == 200)
        #expect(Self.isClosed(silent[0], within: 20), "the oldest silent connection was not closed")
        #expect(Self.isOpen(silent[silent.count - 1]))
    }
}
