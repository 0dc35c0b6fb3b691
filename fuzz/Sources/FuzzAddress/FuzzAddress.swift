#if canImport(Glibc)
import Glibc
#endif
import ThumbFetch

/// One input read two ways, as thumbd meets addresses: as text (an operator's allowed range, or a
/// literal in a source URL), and as the raw bytes of a peer's address that libcurl's socket
/// callback hands over; each classified and judged by a policy with a few ranges open.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzAddress(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)
    var addresses = [IPAddress(text), fromSocket(bytes, family: AF_INET), fromSocket(bytes, family: AF_INET6)]
    if let range = AddressRange(text) {
        guard range.contains(range.network), AddressRange(range.description) == range else {
            fatalError("range \(text.debugDescription) read as \(range), which does not read back as itself")
        }
        addresses.append(range.network)
    }
    for case let address? in addresses {
        guard IPAddress(address.description) == address else {
            fatalError("address \(address) does not read back as itself")
        }
        _ = AddressClass(address)
        _ = policy.allows(address)
    }
    return 0
}

/// The input as the start of a `sockaddr_in` or `sockaddr_in6`, zero-filled where it is short.
private func fromSocket(_ bytes: UnsafeBufferPointer<UInt8>, family: Int32) -> IPAddress? {
    var storage = sockaddr_storage()
    return withUnsafeMutableBytes(of: &storage) { raw in
        let offset = family == AF_INET ? MemoryLayout.offset(of: \sockaddr_in.sin_addr)!
                                       : MemoryLayout.offset(of: \sockaddr_in6.sin6_addr)!
        let count = min(bytes.count, family == AF_INET ? 4 : 16)
        UnsafeMutableRawBufferPointer(rebasing: raw[offset..<offset + count])
            .copyMemory(from: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[..<count])))
        return IPAddress(sockaddr: raw.baseAddress!, family: family)
    }
}

private let policy = AddressPolicy(allowedRanges: ["10.0.0.5", "fd00::/8", "::ffff:192.168.0.0/112", "0.0.0.0/0"]
    .compactMap(AddressRange.init))
