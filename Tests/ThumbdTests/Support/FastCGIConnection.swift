import ThumbdTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A client straight on thumbd's FastCGI socket, sending records byte by byte as it is told:
/// what nginx sends, or what a local user with access to the socket could send instead.
/// Only a descriptor: a test may send from one thread and read from another.
final class FastCGIConnection: @unchecked Sendable {
    let descriptor: Int32

    /// Connects; throws with errno's message (EACCES for a socket the caller may not use).
    init(_ path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let message = String(cString: strerror(errno))
            close(descriptor)
            throw StackError("connect \(path): \(message)")
        }
    }

    deinit { close(descriptor) }

    func send(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { _ = Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Everything thumbd sends until it closes the connection; nil when it has not closed it
    /// within `timeout` seconds.
    func readUntilClosed(timeout: Double) -> [UInt8]? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(left * 1000) + 1) > 0 else { continue }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { return received }
            received += buffer.prefix(count)
        }
    }
}
