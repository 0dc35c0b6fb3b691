#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address as raw bytes, as the kernel hands it to libcurl's socket callback.
public enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    case v4(UInt32)
    case v6([UInt8])

    /// Parses a literal with inet_pton: only the canonical spellings, never DNS.
    public init?(_ literal: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 {
            self = .v4(UInt32(bigEndian: v4.s_addr))
        } else if inet_pton(AF_INET6, literal, &v6) == 1 {
            self = .v6(withUnsafeBytes(of: &v6) { Array($0) })
        } else {
            return nil
        }
    }

    /// Reads the address out of a `sockaddr` of family AF_INET or AF_INET6.
    public init?(sockaddr pointer: UnsafeRawPointer, family: Int32) {
        switch family {
        case AF_INET:
            let address = pointer.loadUnaligned(as: sockaddr_in.self)
            self = .v4(UInt32(bigEndian: address.sin_addr.s_addr))
        case AF_INET6:
            var address = pointer.loadUnaligned(as: sockaddr_in6.self)
            self = .v6(withUnsafeBytes(of: &address.sin6_addr) { Array($0) })
        default:
            return nil
        }
    }

    public var description: String {
        switch self {
        case .v4(let value):
            return [24, 16, 8, 0].map { String((value >> $0) & 0xff) }.joined(separator: ".")
        case .v6(var bytes):
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            _ = inet_ntop(AF_INET6, &bytes, &text, socklen_t(text.count))
            return text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        }
    }
}
