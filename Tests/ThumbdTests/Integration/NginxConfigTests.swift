import Foundation
import Testing
import ThumbdTestSupport
import ThumbOps
@testable import thumbd

/// `thumbd nginx-config`: what it writes nginx accepts, the examples in nginx/ are what it writes,
/// and what could break out of a directive is refused, naming the option.
@Suite(.blocking, .timeLimit(.minutes(2)))
struct NginxConfigTests {
    /// The examples in nginx/ and the arguments that write them (their headers show them too).
    static let examples = [
        "nginx/thumbd-site.example.conf": ["site", "--server-name", "thumbs.example.com", "--hits-log", "/var/log/thumbd/hits.log"],
        "nginx/front.example.conf": ["front", "--host", "10.0.0.11:80", "--host", "10.0.0.12:80", "--host", "10.0.0.13:80"],
    ]

    @Test(arguments: examples.keys.sorted())
    func theExampleIsWhatTheCommandWrites(_ path: String) throws {
        // Given the example as committed
        let committed = try String(contentsOfFile: TestStack.repositoryRoot + "/" + path, encoding: .utf8)

        // When the command writes it again
        let written = try ProcessRunner.run(TestStack.thumbdBinary, ["nginx-config"] + Self.examples[path]!)

        // Then they are the same
        #expect(written.status == 0, "\(written.errors)")
        #expect(written.output == committed,
                "regenerate it: thumbd nginx-config \(Self.examples[path]!.joined(separator: " ")) > \(path)")
    }

    static let siteVariants: [(String, [String])] = [
        ("one socket", []),
        ("several sockets", ["--socket", "unix:{dir}/b.sock", "--socket", "unix:{dir}/c.sock"]),
        ("no hits log", ["--hits-log", "off"]),
        ("no access log", ["--access-log", "off"]),
        ("hits to syslog", ["--hits-log", "syslog:server=unix:{dir}/hits.sock,nohostname"]),
        ("a TCP socket", ["--socket", "127.0.0.1:9000"]),
        ("formats enforced", ["--enforce", "webp", "--enforce", "avif"]),
        ("WebP negotiated alone", ["--auto", "webp"]),
    ]

    @Test(arguments: siteVariants.map(\.0))
    func nginxAcceptsTheSite(_ variant: String) throws {
        // Given a site written with the variant's options
        let directory = try Self.nginxDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let options = Self.siteVariants.first { $0.0 == variant }!.1.map { $0.replacingOccurrences(of: "{dir}", with: directory) }
        let sockets = options.contains("--socket") ? [] : ["--socket", "unix:\(directory)/a.sock"]
        try TestStack.writeSite(to: directory + "/thumbd-site.conf", [
            "--server-name", "thumbs.example.com", "--listen", "127.0.0.1:\(try FreePort.next())",
            "--cache-root", directory + "/cache", "--access-log", directory + "/access.log",
            "--extras", directory + "/site.d/*.conf",
        ] + sockets + options)

        // Then nginx -t accepts it
        try Self.expectNginxAccepts(directory)
    }

    @Test(arguments: [1, 3])
    func nginxAcceptsTheFront(hosts: Int) throws {
        // Given a front of `hosts` hosts
        let directory = try Self.nginxDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let written = try ProcessRunner.run(TestStack.thumbdBinary, [
            "nginx-config", "front", "--listen", "127.0.0.1:\(try FreePort.next())",
            "--access-log", directory + "/front-access.log", "--output", directory + "/thumbd-site.conf",
        ] + (1...hosts).flatMap { ["--host", "127.0.0.\($0):80"] })
        #expect(written.status == 0, "\(written.errors)")

        // Then nginx -t accepts it, with a server line per host
        let front = try String(contentsOfFile: directory + "/thumbd-site.conf", encoding: .utf8)
        #expect(front.components(separatedBy: " max_fails=1 fail_timeout=5s;").count - 1 == hosts)
        try Self.expectNginxAccepts(directory)
    }

    @Test(arguments: [
        ["site", "--cache-root", "var/cache/thumbd"],
        ["site", "--cache-root", "/var/cache/thumbd;"],
        ["site", "--cache-root", "/var/cache/{thumbd}"],
        ["site", "--cache-root", "/var/cache/$thumbd"],
        ["site", "--server-name", "example.com;"],
        ["site", "--server-name", "a b"],
        ["site", "--server-name", "a\nb"],
        ["site", "--server-name", "\"a\""],
        ["site", "--listen", "70000"],
        ["site", "--listen", "127.0.0.1:0"],
        ["site", "--socket", "unix:/run/thumbd'.sock"],
        ["site", "--socket", "127.0.0.1:65536"],
        ["site", "--socket", "host{:9000"],
        ["site", "--hits-log", "/var/log/hits log"],
        ["site", "--access-log", "relative.log"],
        ["site", "--enforce", "jpeg"],
        ["site", "--enforce", "webp;"],
        ["site", "--auto", "png"],
        ["site", "--extras", "/etc/x/*.conf}"],
        ["front", "--host", "10.0.0.1"],
        ["front", "--host", "10.0.0.1:80;"],
        ["front", "--host", "10.0.0.1:80", "--access-log", "/var/log/a\tb"],
    ])
    func aValueThatCouldBreakOutIsRefusedByName(_ arguments: [String]) {
        // When the command reads the value
        let refused = #expect(throws: (any Error).self) { try NginxConfigCommand.parseAsRoot(arguments) }

        // Then the message names the option
        let option = arguments.last { $0.hasPrefix("--") }!
        #expect(refused.map { NginxConfigCommand.message(for: $0).contains(option) } == true,
                "\(refused.map { NginxConfigCommand.message(for: $0) } ?? "")")
    }

    @Test func aFrontNeedsAHost() {
        #expect(throws: (any Error).self) { try NginxConfigCommand.parseAsRoot(["front"]) }
    }

    @Test func outputReplacesTheFileWhole() throws {
        // Given a file that holds an older config
        let directory = try Self.nginxDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/thumbd-site.conf"
        try "old".write(toFile: path, atomically: false, encoding: .utf8)

        // When the site is written over it
        try TestStack.writeSite(to: path, ["--cache-root", directory + "/cache"])

        // Then the file is the new site, readable by nginx's workers, and no temp file is left
        let site = try String(contentsOfFile: path, encoding: .utf8)
        #expect(site.hasPrefix("# thumbd's nginx site."))
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o644)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(".thumbd-tmp-") }.isEmpty)
    }

    /// A directory with nginx/nginx.conf filled in for it, whose site is `thumbd-site.conf`.
    static func nginxDirectory() throws -> String {
        let directory = NSTemporaryDirectory() + "thumbd-nginx-config-\(UUID().uuidString)"
        for path in [directory, directory + "/nginx-tmp", directory + "/site.d", directory + "/cache"] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        let main = try String(contentsOfFile: TestStack.repositoryRoot + "/nginx/nginx.conf", encoding: .utf8)
        try main.replacingOccurrences(of: "@RUN_DIR@", with: directory)
            .write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        return directory
    }

    static func expectNginxAccepts(_ directory: String) throws {
        let tested = try ProcessRunner.run("/usr/sbin/nginx", ["-t", "-p", directory, "-c", directory + "/nginx.conf"])
        #expect(tested.status == 0, "\(tested.errors)")
    }
}
