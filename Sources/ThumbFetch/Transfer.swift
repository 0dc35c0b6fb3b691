import CCurl
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// The state one transfer shares with libcurl's C callbacks: the body received so far, the
/// byte limit, and the address guard's verdicts. Reached from C through an unmanaged pointer.
final class Transfer {
    /// The handle doing the transfer, asked for the body's declared length. It outlives the transfer.
    unowned let easy: CurlEasy
    let byteLimit: Int
    /// nil when every connection goes to the operator's proxy, the origin's address checked before.
    let policy: AddressPolicy?
    /// When the first byte of the body must have arrived, in DispatchTime nanoseconds.
    let firstByteDeadline: UInt64
    private(set) var body: [UInt8] = []
    private(set) var exceededLimit = false
    private(set) var refusedAddress: IPAddress?
    private(set) var missedFirstByte = false

    init(easy: CurlEasy, byteLimit: Int, policy: AddressPolicy?, firstByteTimeoutMilliseconds: Int) {
        self.easy = easy
        self.byteLimit = byteLimit
        self.policy = policy
        firstByteDeadline = DispatchTime.now().uptimeNanoseconds + UInt64(firstByteTimeoutMilliseconds) * 1_000_000
    }

    /// An origin that accepts the connection but sends nothing is given up on early, not only
    /// at the total timeout.
    fileprivate func stillWaiting(received: curl_off_t) -> Bool {
        guard received == 0, DispatchTime.now().uptimeNanoseconds > firstByteDeadline else { return true }
        missedFirstByte = true
        return false
    }

    fileprivate func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= byteLimit else {
            exceededLimit = true
            return false
        }
        // Room for the declared length at once: growing by doubling would copy a large source's
        // bytes again and fault in twice its size (an 8 MB photo: 16 MB).
        if body.capacity == 0, let declared = easy.declaredLength {
            body.reserveCapacity(min(declared, byteLimit))
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// Decides on every address libcurl is about to connect to, on every redirect hop, after DNS.
    fileprivate func admit(_ address: IPAddress?) -> Bool {
        guard let policy else { return true }
        guard let address, policy.allows(address) else {
            refusedAddress = address ?? refusedAddress
            return false
        }
        return true
    }
}

/// libcurl's write callback: appends to the transfer's body, refusing bytes past the limit
/// (CURLOPT_MAXFILESIZE alone only checks a declared Content-Length).
let transferWriteCallback: curl_write_callback = { data, size, count, userdata in
    guard let data, let userdata else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    let length = size * count
    return transfer.receive(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

/// libcurl's progress callback: a non-zero answer aborts the transfer.
let transferProgressCallback: curl_xferinfo_callback = { clientp, _, received, _, _ in
    guard let clientp else { return 1 }
    let transfer = Unmanaged<Transfer>.fromOpaque(clientp).takeUnretainedValue()
    return transfer.stillWaiting(received: received) ? 0 : 1
}

/// libcurl's open-socket callback: the one place that sees the address actually connected to,
/// so DNS rebinding and redirects to internal addresses are refused as well as literals.
let transferOpenSocketCallback: curl_opensocket_callback = { clientp, _, address in
    guard let clientp, let address else { return CURL_SOCKET_BAD }
    let transfer = Unmanaged<Transfer>.fromOpaque(clientp).takeUnretainedValue()
    let ip = withUnsafePointer(to: &address.pointee.addr) {
        IPAddress(sockaddr: UnsafeRawPointer($0), family: address.pointee.family)
    }
    guard transfer.admit(ip) else { return CURL_SOCKET_BAD }
    return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
}
