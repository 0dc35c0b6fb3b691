import Foundation
import Synchronization
import Testing
import ThumbdTestSupport
@testable import ThumbRequest

/// SIGHUP reads the settings file again: new keys, presets and allowed sources take effect at
/// once, a file with a problem changes nothing, and requests under way while it happens are
/// answered.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct ReloadTests {
    static let first = (key: "6b65792d6f6e65", salt: "73616c742d6f6e65")
    static let second = (key: "6b65792d74776f", salt: "73616c742d74776f")

    let origin: TestOrigin
    let settings: String

    init() throws {
        origin = try TestOrigin()
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 300, height: 200)))
        settings = NSTemporaryDirectory() + "thumbd-reload-\(UUID().uuidString).env"
    }

    static func signer(_ pairs: (key: String, salt: String)...) -> SignatureVerifier {
        SignatureVerifier(pairs: pairs.map { .init(key: Array(hex: $0.key), salt: Array(hex: $0.salt)) })
    }

    func write(_ lines: [String]) throws {
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: settings))
    }

    func keys(_ pairs: (key: String, salt: String)...) -> [String] {
        ["THUMBD_KEY=\(pairs.map(\.key).joined(separator: ","))", "THUMBD_SALT=\(pairs.map(\.salt).joined(separator: ","))"]
    }

    /// Sends HUP and waits for thumbd to say what it made of it.
    func reload(_ stack: TestStack, expecting said: String) {
        let before = stack.thumbdLog.components(separatedBy: said).count
        stack.signalThumbd(SIGHUP)
        #expect(eventually(timeout: 30) { stack.thumbdLog.components(separatedBy: said).count > before }, "\(said)")
    }

    @Test func keysPresetsAndRulesChangeOnHUPAndABadFileChangesNothing() throws {
        // Given thumbd reading its key from a settings file
        try write(keys(Self.first))
        defer { unlink(settings) }
        let stack = try TestStack(environment: ["THUMBD_CONFIG": settings])
        defer { stack.shutdown() }
        let (first, second) = (Self.signer(Self.first), Self.signer(Self.second))
        let source = "plain/\(origin.url("/photo.jpg"))@png"
        #expect(try stack.get(first.signedPath("/w:40/\(source)")).status == 200)
        #expect(try stack.get(second.signedPath("/w:41/\(source)")).status == 403)

        // When the file gets another key and a preset, and thumbd is sent HUP
        try write(keys(Self.second) + ["THUMBD_PRESETS=small=w:30"])
        reload(stack, expecting: "settings reloaded")

        // Then new URLs verify with the new key only, and the preset exists
        #expect(try stack.get(first.signedPath("/w:42/\(source)")).status == 403)
        #expect(try stack.get(second.signedPath("/w:43/\(source)")).status == 200)
        let preset = try stack.get(second.signedPath("/pr:small/\(source)"))
        #expect(preset.status == 200)
        #expect(try ImageProbe(preset.body).width == 30)

        // When the file is broken and thumbd is sent HUP again
        try write(["THUMBD_KEY=not-hex", "THUMBD_SALT=73616c74"])
        reload(stack, expecting: "reload refused")

        // Then the settings in use stay
        #expect(try stack.get(second.signedPath("/w:44/\(source)")).status == 200)
        #expect(try stack.get(first.signedPath("/w:45/\(source)")).status == 403)
        #expect(stack.thumbdIsRunning)
    }

    @Test func aRefusedReloadNeverLogsASecretValue() throws {
        // Given thumbd with a live key from its settings file
        try write(keys(Self.first))
        defer { unlink(settings) }
        let stack = try TestStack(environment: ["THUMBD_CONFIG": settings])
        defer { stack.shutdown() }

        // When the file gets the live key beside one that is not hex, a salt too many, and a trusted
        // signature and source headers that are not valid either, and thumbd is sent HUP
        let headers = "not-a-prefix Authorization: Bearer header-secret-token"
        try write([
            "THUMBD_KEY=\(Self.first.key),zz-not-hex-key-secret", "THUMBD_SALT=\(Self.first.salt),\(Self.second.salt)",
            "THUMBD_TRUSTED_SIGNATURES=trusted-signature-secret", "THUMBD_SOURCE_HEADERS=\(headers)",
        ])
        reload(stack, expecting: "reload refused")

        // Then the refusal names the settings, and no value of theirs
        let log = stack.thumbdLog
        #expect(log.contains("THUMBD_KEY in \(settings)=(secret, not shown)"), "\(log)")
        #expect(log.contains("THUMBD_SOURCE_HEADERS in \(settings)=(secret, not shown)"), "\(log)")
        for secret in [Self.first.key, Self.first.salt, Self.second.salt, "zz-not-hex", "header-secret-token"] {
            #expect(!log.contains(secret), "\(secret) in \(log)")
        }
    }

    @Test func theAddressPolicyReloadsAndAChangeThatNeedsARestartIsNamed() throws {
        // Given thumbd whose settings file does not allow loopback sources (the test origin's)
        try write(keys(Self.first))
        defer { unlink(settings) }
        let stack = try TestStack(environment: ["THUMBD_CONFIG": settings],
                                  unsetting: ["THUMBD_ALLOW_LOOPBACK_SOURCE_ADDRESSES", "THUMBD_WORKERS"])
        defer { stack.shutdown() }
        origin.serve("/after.jpg", .image(TestImages.jpeg(width: 300, height: 200)))
        let signer = Self.signer(Self.first)
        #expect(try stack.get(signer.signedPath("/w:40/plain/\(origin.url("/photo.jpg"))@png")).status == 403)

        // When the file allows them, and changes the worker threads too, and thumbd is sent HUP
        try write(keys(Self.first) + ["THUMBD_ALLOW_LOOPBACK_SOURCE_ADDRESSES=true", "THUMBD_WORKERS=3"])
        reload(stack, expecting: "settings reloaded")

        // Then a loopback source is fetched, and the line names the setting that waits for a restart
        #expect(try stack.get(signer.signedPath("/w:40/plain/\(origin.url("/after.jpg"))@png")).status == 200)
        let line = try #require(stack.thumbdLog.split(separator: "\n").last { $0.contains("settings reloaded") })
        #expect(line.contains("restart_needed=WORKERS "), "\(line)")
        #expect(!line.contains("ALLOW_LOOPBACK"), "\(line)")
    }

    @Test func theMetricsTokenRotatesOnHUP() throws {
        // Given thumbd whose metrics token is in its settings file
        let (old, new) = ("old-metrics-token-0123456789", "new-metrics-token-0123456789")
        try write(keys(Self.first) + ["THUMBD_METRICS_TOKEN=\(old)"])
        defer { unlink(settings) }
        let stack = try TestStack(environment: ["THUMBD_CONFIG": settings], unsetting: ["THUMBD_METRICS_TOKEN"])
        defer { stack.shutdown() }
        let scrape = { (token: String) in
            try stack.get("/_thumbd/metrics", headers: ["Authorization": "Bearer \(token)"]).status
        }
        #expect(try scrape(old) == 200)

        // When the file gets another token, and thumbd is sent HUP
        try write(keys(Self.first) + ["THUMBD_METRICS_TOKEN=\(new)"])
        reload(stack, expecting: "settings reloaded")

        // Then only the new one reads the metrics, and neither is in the log
        #expect(try scrape(new) == 200)
        #expect(try scrape(old) == 401)
        #expect(!stack.thumbdLog.contains(old) && !stack.thumbdLog.contains(new))
    }

    @Test func requestsUnderWayWhileKeysRotateAreAllAnswered() throws {
        // Given thumbd with one key, and clients asking for thumbnails signed with it
        try write(keys(Self.first))
        defer { unlink(settings) }
        let stack = try TestStack(environment: ["THUMBD_CONFIG": settings])
        defer { stack.shutdown() }
        let signer = Self.signer(Self.first)
        let source = "plain/\(origin.url("/photo.jpg"))@png"
        let statuses = Mutex<[Int]>([])
        let load = Thread.runDetached {
            DispatchQueue.concurrentPerform(iterations: 4) { client in
                for round in 0..<40 {
                    // Misses (a new width each) and hits (the same few again)
                    let width = round % 2 == 0 ? 20 + client * 40 + round : 20 + client
                    let status = (try? stack.get(signer.signedPath("/w:\(width)/\(source)")).status) ?? 0
                    statuses.withLock { $0.append(status) }
                }
            }
        }

        // When the key is rotated in and out five times meanwhile
        for rotation in 0..<5 {
            try write(rotation % 2 == 0 ? keys(Self.first, Self.second) : keys(Self.first))
            reload(stack, expecting: "settings reloaded")
        }
        try load.value()

        // Then every request was answered with its thumbnail
        let answered = statuses.withLock { $0 }
        #expect(answered.count == 160)
        #expect(answered.allSatisfy { $0 == 200 }, "\(Dictionary(grouping: answered, by: { $0 }).mapValues(\.count))")
    }
}
