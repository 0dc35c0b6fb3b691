import Foundation
import Synchronization
import Testing
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
        load.value()

        // Then every request was answered with its thumbnail
        let answered = statuses.withLock { $0 }
        #expect(answered.count == 160)
        #expect(answered.allSatisfy { $0 == 200 }, "\(Dictionary(grouping: answered, by: { $0 }).mapValues(\.count))")
    }
}
