import Foundation
import Testing
import ThumbdTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// An origin that misbehaves in every way issue 10 lists: each fault gets its status within its
/// deadline, thumbd's memory stays bounded, nothing is cached, and the next good request is
/// served normally.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct FaultyOriginTests {
    /// A fault and the status it must get. Each status is the one only its limit gives: a
    /// trickle or a silent port would hold a request forever without the timeouts (504), an
    /// endless body without the size limit (413), a loop without the redirect limit.
    struct Fault: CustomStringConvertible, Sendable {
        let name: String
        let status: Int
        /// The source path under the origin, or a whole URL when it is not the origin's.
        let source: @Sendable (FaultyOrigin) -> String
        var description: String { name }
    }

    static let faults: [Fault] = [
        Fault(name: "a body sent one byte a second", status: 504) { $0.origin.url("/trickle.jpg") },
        Fault(name: "a connection reset mid-body", status: 502) { $0.origin.url("/reset.jpg") },
        Fault(name: "a Content-Length larger than the body", status: 502) { $0.origin.url("/long.jpg") },
        Fault(name: "a Content-Length smaller than the body", status: 422) { $0.origin.url("/short.jpg") },
        Fault(name: "an endless body", status: 413) { $0.origin.url("/endless.jpg") },
        Fault(name: "a redirect loop", status: 502) { $0.origin.url("/loop") },
        Fault(name: "a 30-hop redirect chain", status: 502) { $0.origin.url("/hop/0") },
        Fault(name: "200 with an HTML page", status: 422) { $0.origin.url("/page.jpg") },
        Fault(name: "a gzip-encoded image", status: 422) { $0.origin.url("/gzipped.jpg") },
        Fault(name: "a gzip bomb", status: 422) { $0.origin.url("/bomb.jpg") },
        Fault(name: "a JPEG header declaring 60000x60000", status: 422) { $0.origin.url("/huge.jpg") },
        Fault(name: "a 1x1 GIF with 100,000 frames", status: 422) { $0.origin.url("/frames.gif") },
        Fault(name: "a PNG with a huge zTXt chunk", status: 200) { $0.origin.url("/ztxt.png") },
        Fault(name: "a TCP accept that never answers", status: 504) { "http://127.0.0.1:\($0.silent.port)/x.jpg" },
        Fault(name: "a TLS port that speaks plain text", status: 502) { "https://127.0.0.1:\($0.plainText.port)/photo.jpg" },
    ]

    @Test(arguments: faults)
    func eachFaultGetsItsStatusInTimeAndTheNextGoodRequestIsServed(_ fault: Fault) throws {
        let faulty = try FaultyOrigin()
        let stack = try TestStack(environment: [
            "THUMBD_FIRST_BYTE_TIMEOUT": "1", "THUMBD_DOWNLOAD_TIMEOUT": "3", "THUMBD_MAX_SRC_FILE_SIZE": "2097152",
            "THUMBD_MAX_REDIRECTS": "10", "THUMBD_MAX_ANIMATION_FRAMES": "10",
        ])
        defer { stack.shutdown() }
        let idle = try #require(stack.thumbdResidentKiB())

        let response = try stack.get("/insecure/rs:fit:100:100/plain/\(fault.source(faulty))@png")

        #expect(response.status == fault.status, "\(fault): \(response.text)")
        if fault.status != 200 { #expect(stack.cacheFiles().isEmpty) }
        // Memory stays bounded: no fault makes thumbd hold more than a few tens of MiB more
        let resident = try #require(stack.thumbdResidentKiB())
        #expect(resident - idle < 96 * 1024, "\(fault): \(idle) KiB idle, \(resident) KiB after")
        let good = try stack.get("/insecure/rs:fit:100:100/plain/\(faulty.origin.url("/photo.jpg"))@png")
        #expect(good.status == 200)
        #expect(try ImageProbe(good.body).width == 100)
    }
}

/// The origin of FaultyOriginTests: every fault at a path of its own, a port nobody answers and
/// a port that answers TLS in plain HTTP.
final class FaultyOrigin: @unchecked Sendable {
    let origin: TestOrigin
    let silent: RawListener
    let plainText: RawListener

    init() throws {
        origin = try TestOrigin()
        silent = try RawListener()
        plainText = try RawListener(reply: Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
        let photo = TestImages.jpeg(width: 600, height: 400)
        origin.serve("/photo.jpg", .image(photo))
        origin.serve("/trickle.jpg", .init(headers: [("Content-Type", "image/jpeg")], body: photo, kind: .trickle))
        origin.serve("/reset.jpg", .init(headers: [("Content-Type", "image/jpeg")], body: photo, kind: .resetMidBody))
        origin.serve("/long.jpg", .init(headers: [("Content-Type", "image/jpeg")], body: photo, kind: .declaredLength(photo.count * 2)))
        origin.serve("/short.jpg", .init(headers: [("Content-Type", "image/jpeg")], body: photo, kind: .declaredLength(photo.count / 2)))
        origin.serve("/endless.jpg", .init(headers: [("Content-Type", "image/jpeg")], body: photo, kind: .endless))
        origin.serve("/loop", .redirect(origin.url("/loop")))
        for hop in 0..<30 { origin.serve("/hop/\(hop)", .redirect(origin.url("/hop/\(hop + 1)"))) }
        origin.serve("/hop/30", .image(photo))
        origin.serve("/page.jpg", .init(headers: [("Content-Type", "image/jpeg")], body: Array("<!doctype html><p>an error page".utf8)))
        let encoded: [(String, String)] = [("Content-Type", "image/jpeg"), ("Content-Encoding", "gzip")]
        origin.serve("/gzipped.jpg", .init(headers: encoded, body: try Self.python("sys.stdout.buffer.write(gzip.compress(sys.stdin.buffer.read()))", input: photo)))
        origin.serve("/bomb.jpg", .init(headers: encoded, body: try Self.gzipBomb.get()))
        origin.serve("/huge.jpg", .image(Self.declaring(width: 60_000, height: 60_000, TestImages.jpeg(width: 16, height: 16))))
        origin.serve("/frames.gif", .image(Self.gif(frames: 100_000), contentType: "image/gif"))
        let png = TestImages.draw("xc:teal", width: 300, height: 200, format: .png)
        let comment = PNGChunks.chunk("zTXt", Array("Comment".utf8) + [0, 0] + (try Self.zlibBomb.get()))
        origin.serve("/ztxt.png", .image(Array(png[..<33]) + comment + Array(png[33...]), contentType: "image/png"))
    }

    /// 256 MiB of zeros, compressed to about 256 KiB: made once for every test.
    static let gzipBomb = Result { try python("sys.stdout.buffer.write(gzip.compress(bytes(1 << 28), 9))") }
    static let zlibBomb = Result { try python("sys.stdout.buffer.write(zlib.compress(bytes(1 << 28), 9))") }

    /// Bytes a line of Python 3 writes (gzip and zlib, which Foundation lacks here).
    static func python(_ statement: String, input: [UInt8] = []) throws -> [UInt8] {
        let run = try ProcessRunner.run("/usr/bin/python3", ["-c", "import gzip, sys, zlib; " + statement], input: input)
        guard run.status == 0 else { throw StackError("python3: \(run.errors)") }
        return run.outputBytes
    }

    /// A JPEG whose start-of-frame names another size than its pixels have.
    static func declaring(width: Int, height: Int, _ jpeg: [UInt8]) -> [UInt8] {
        var bytes = jpeg
        let frame = (0..<bytes.count - 1).first { bytes[$0] == 0xff && bytes[$0 + 1] == 0xc0 }!
        bytes[frame + 5...frame + 8] = [UInt8(height >> 8), UInt8(height & 0xff), UInt8(width >> 8), UInt8(width & 0xff)]
        return bytes
    }

    /// A 1x1 GIF of `frames` frames, each one pixel of colour 0 (15 bytes a frame).
    static func gif(frames: Int) -> [UInt8] {
        var bytes = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        let frame: [UInt8] = [0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0]
        bytes.reserveCapacity(bytes.count + frames * frame.count + 1)
        for _ in 0..<frames { bytes += frame }
        return bytes + [0x3b]
    }
}

/// A port that speaks no HTTP: with no reply, nobody accepts (the kernel completes connections
/// that are never answered); with one, every connection gets it at once, whatever it sent, and
/// is closed, as a plain HTTP server answers bytes it cannot parse.
final class RawListener: @unchecked Sendable {
    let port: Int
    private let fd: Int32

    init(reply: [UInt8]? = nil) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard listening else { throw StackError("cannot listen") }
        port = Int(UInt16(bigEndian: address.sin_port))
        guard let reply else { return }
        Thread {
            while case let connection = accept(fd, nil, nil), connection >= 0 {
                _ = reply.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(connection)
            }
        }.start()
    }

    deinit {
        shutdown(fd, Int32(SHUT_RDWR))  // ends the accept loop
        close(fd)
    }
}
