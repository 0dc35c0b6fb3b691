import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ThumbImaging
@testable import ThumbRequest

/// deploy/thumbd.service takes away every system call, address family and memory mapping thumbd
/// does not need. Without systemd running the service here, deploy/syscall-sandbox installs the
/// unit's seccomp rules as systemd would, and the real nginx + thumbd stack serves under them.
@Suite(.blocking, .timeLimit(.minutes(5)), .serialized)
struct HardenedServiceTests {
    static let unit = TestStack.repositoryRoot + "/deploy/thumbd.service"
    static let sandbox = ["/usr/bin/python3", TestStack.repositoryRoot + "/deploy/syscall-sandbox", unit]
    /// thumbd makes its socket itself here (under the unit, thumbd.socket makes it, in www-data's
    /// group): run in the group of nginx's workers, it gives the socket that group without a chown
    /// (a call the unit takes away).
    static let launcher = ["/usr/bin/setpriv", "--regid=\(TestStack.nginxWorkerGroup)", "--clear-groups"] + sandbox

    @Test func thumbdServesEveryFormatUnderTheUnitsRules() throws {
        // Given an origin with a photo in every format thumbd reads by default, and an animation
        let origin = try TestOrigin()
        let readable = ImageFormat.allCases.filter { SourceFormat(rawValue: $0.rawValue) != nil }
        for format in readable {
            origin.serve("/photo.\(format.fileExtension)", .image(TestImages.halves(width: 120, height: 80, format: format)))
        }
        origin.serve("/bitmap.bmp", .image(SourceFormatTests.drawn("BMP"), contentType: "image/bmp"))
        origin.serve("/animation.gif", .image(GoldenImages.animation(colors: ["red", "blue"], width: 60, height: 40, delay: 10)))
        // and nginx + thumbd started under the unit's system call filter, address families, W^X
        let stack = try TestStack(environment: [
            "THUMBD_MAX_ANIMATION_FRAMES": "4", "THUMBD_AUTO_WEBP": "true", "THUMBD_SOCKET_GROUP": "",
        ], launcher: Self.launcher)

        // When each is fetched from the origin and rendered into every format
        let sources = readable.map { "/photo.\($0.fileExtension)" } + ["/bitmap.bmp", "/animation.gif"]
        for source in sources {
            for format in ImageFormat.allCases {
                let response = try stack.get("/insecure/rs:fill:40:30/plain/\(origin.url(source))@\(format.fileExtension)")

                // Then each is a thumbnail of its format and size
                #expect(response.status == 200, "\(source) as \(format): \(response.text.prefix(200))")
                // The reference decoders read what ImageMagick 6 does not: JPEG XL, and AVIF sequences
                switch format {
                case .jxl:
                    #expect(try JXLTests.referenceDecode(response.body).info.contains("JPEG XL image, 40x30"), "\(source)")
                case .avif:
                    #expect(try AVIFTests.referenceDecode(response.body).info.contains("Resolution     : 40x30"), "\(source)")
                default:
                    let image = try ImageProbe(response.body)
                    #expect((image.format, image.width, image.height) == (format.magickName, 40, 30), "\(source) as \(format)")
                }
            }
        }
        // and a second spelling, a hit, negotiation, health and the metrics work too
        let encoded = Base64URL.encode(Array(origin.url("/photo.jpg").utf8))
        #expect(try stack.get("/insecure/rs:fill:40:30/\(encoded).png").status == 200)
        #expect(try stack.get("/insecure/rs:fill:40:30/plain/\(origin.url("/photo.jpg"))@png").status == 200)
        #expect(try stack.get("/insecure/w:30/plain/\(origin.url("/photo.png"))", headers: ["Accept": "image/webp"]).status == 200)
        #expect(try stack.get("/health").status == 200)
        #expect(try stack.metrics()["thumbd_renders_total"] ?? 0 >= sources.count * ImageFormat.allCases.count)
        // and thumbd stops on TERM as it should, with status 0
        stack.stopThumbd()
        #expect(stack.thumbdExitStatus(within: 1) == 0)
        #expect(!stack.thumbdLog.contains("Operation not permitted"), "\(stack.thumbdLog.suffix(2000))")
    }

    @Test func theSandboxDeniesWhatTheUnitTakesAway() throws {
        // A program under the unit's rules is refused what thumbd gives up: other address families,
        // memory both writable and executable, the resource calls but setpriority (thumbd and
        // libdispatch set their threads' nice), user and group ids
        let probe = try ProcessRunner.run(Self.sandbox[0], Array(Self.sandbox.dropFirst()) + ["/usr/bin/python3", "-c", """
            import errno, mmap, os, socket
            def attempt(name, call):
                try:
                    call()
                    print(name, "allowed")
                except OSError as error:
                    print(name, errno.errorcode[error.errno])
            attempt("netlink", lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW))
            attempt("packet", lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW))
            attempt("inet6", lambda: socket.socket(socket.AF_INET6, socket.SOCK_STREAM).close())
            attempt("wx", lambda: mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC))
            attempt("nice", lambda: os.setpriority(os.PRIO_PROCESS, 0, 5))
            attempt("affinity", lambda: os.sched_setaffinity(0, os.sched_getaffinity(0)))
            attempt("scheduler", lambda: os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0)))
            attempt("setuid", lambda: os.setuid(1))
            """])

        #expect(probe.status == 0, "\(probe.errors)")
        #expect(probe.output.split(separator: "\n").sorted() == [
            "affinity EPERM", "inet6 allowed", "netlink EAFNOSUPPORT", "nice allowed", "packet EAFNOSUPPORT",
            "scheduler EPERM", "setuid EPERM", "wx EPERM",
        ])
    }
}
