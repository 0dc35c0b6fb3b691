import ThumbdTestSupport
import Foundation
@testable import ThumbFetch
#if canImport(Glibc)
import Glibc
#endif

/// moto's standalone S3 server (PyPI `moto[server]`, pinned in deploy/test) on 127.0.0.1, with
/// authentication enforced: only the three requests that make its user, access key and policy
/// pass unsigned (INITIAL_NO_AUTH_ACTION_COUNT), so a request signed wrong is refused as S3
/// refuses it. Its log (werkzeug's, one line per request) counts what reached it.
///
/// moto 5.2.1 computes the signature of a key with non-ASCII characters differently from every
/// client (botocore's own requests to it are refused), so such keys are tested on a server
/// started without authentication, the signature compared with botocore's apart.
final class S3TestServer: @unchecked Sendable {
    struct Object {
        let bucket: String
        let key: String
        let bytes: [UInt8]
        var versioned = false
    }

    let port: Int
    let accessKeyID: String
    let secretAccessKey: String
    /// A role's temporary credentials (AssumeRole), which only work with their session token.
    let temporary: (accessKeyID: String, secretAccessKey: String, sessionToken: String)
    /// Versions of the objects of versioned buckets, oldest first, by `bucket/key`.
    let versions: [String: [String]]
    private let process: ChildProcess
    private let logPath: String
    private let directory: String

    var endpoint: String { "http://127.0.0.1:\(port)" }

    /// The Python that has moto: THUMBD_TEST_MOTO_PYTHON (deploy/test's virtual environment), else
    /// the first python3 on PATH.
    static var python: String {
        let environment = ProcessInfo.processInfo.environment
        if let python = environment["THUMBD_TEST_MOTO_PYTHON"] { return python }
        let directories = (environment["PATH"] ?? "/usr/bin").split(separator: ":")
        return directories.map { "\($0)/python3" }.first { access($0, X_OK) == 0 } ?? "/usr/bin/python3"
    }

    init(objects: [Object], enforcingAuthentication: Bool = true) throws {
        let directory = NSTemporaryDirectory() + "thumbd-moto-\(UUID().uuidString)"
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // deinit removes it once the server is made; a start that fails removes it here.
        var started = false
        defer { if !started { try? FileManager.default.removeItem(atPath: directory) } }
        logPath = directory + "/moto.log"
        port = try FreePort.next()
        var environment = ProcessInfo.processInfo.environment
        environment["INITIAL_NO_AUTH_ACTION_COUNT"] = enforcingAuthentication ? "3" : nil
        process = try ChildProcess(Self.python, ["-m", "moto.server", "-H", "127.0.0.1", "-p", "\(port)"],
                                   environment: environment, stdout: .file(logPath), stderr: .file(logPath))
        let port = self.port
        try waitUntil("moto listens on 127.0.0.1:\(port)", timeout: 60) { Self.canConnect(port: port) }

        var spec: [[String: Any]] = []
        for (index, object) in objects.enumerated() {
            let path = "\(directory)/object-\(index)"
            try Data(object.bytes).write(to: URL(fileURLWithPath: path))
            spec.append(["bucket": object.bucket, "key": object.key, "path": path, "versioned": object.versioned])
        }
        let input = try JSONSerialization.data(withJSONObject: ["endpoint": "http://127.0.0.1:\(port)", "objects": spec])
        let filled = try ProcessRunner.run(Self.python, [TestStack.repositoryRoot + "/Tests/ThumbdTests/Support/moto-fill.py"],
                                           input: Array(input), timeout: 120)
        guard filled.status == 0,
              let answer = try JSONSerialization.jsonObject(with: Data(filled.outputBytes)) as? [String: Any],
              let id = answer["access_key_id"] as? String, let secret = answer["secret_access_key"] as? String else {
            throw StackError("moto-fill.py failed (\(filled.status)): \(filled.errors)")
        }
        accessKeyID = id
        secretAccessKey = secret
        versions = answer["versions"] as? [String: [String]] ?? [:]
        guard let role = answer["temporary"] as? [String: String], let roleKey = role["access_key_id"],
              let roleSecret = role["secret_access_key"], let token = role["session_token"] else {
            throw StackError("moto-fill.py gave no temporary credentials: \(filled.output)")
        }
        temporary = (roleKey, roleSecret, token)
        started = true
    }

    deinit {
        process.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The GETs of `bucket/key` that reached the server so far (any query, any answer).
    func getCount(bucket: String, key: String) throws -> Int {
        let log = try String(contentsOfFile: logPath, encoding: .utf8)
        let escapedKey = SigV4Signer.uriEncode(key, keepingSlash: true)
        let lines = log.split(separator: "\n")
        return lines.filter { $0.contains("\"GET /\(bucket)/\(escapedKey) ") || $0.contains("\"GET /\(bucket)/\(escapedKey)?") }
            .count
    }

    private static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
