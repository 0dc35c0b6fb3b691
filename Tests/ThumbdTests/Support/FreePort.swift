import ThumbdTestSupport
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A port of 127.0.0.1 for a server a test starts: free when chosen, and below the kernel's
/// ephemeral range, so that no outgoing connection (thumbd to its origin, a client to nginx)
/// takes it between the choice and the server's bind. A port the kernel picks (bind to 0) is
/// in that range, and CI once lost nginx's port that way. Ports handed out stay taken for the
/// process's life, so two stacks started at once never get the same one.
enum FreePort {
    private static let handedOut = Mutex<Set<Int>>([])

    static func next() throws -> Int {
        let below = ephemeralRangeStart()
        for _ in 0..<200 {
            let port = Int.random(in: 10_000..<below)
            let taken = handedOut.withLock { !$0.insert(port).inserted }
            if !taken, canBind(port) { return port }
        }
        throw StackError("no free port below \(below)")
    }

    private static func ephemeralRangeStart() -> Int {
        let range = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
        let low = range?.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32768
        return max(low, 10_001)
    }

    private static func canBind(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
