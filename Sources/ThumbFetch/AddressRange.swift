/// A network an operator names to let thumbd fetch from one address or range that its class would
/// refuse (an image server on 10.0.0.5, say), without opening every private network.
///
/// An IPv4 address is matched by IPv4 ranges only, however it is spelt: the IPv4-mapped IPv6 form
/// `::ffff:a.b.c.d`, which the kernel hands over for IPv4 peers on a dual-stack socket, is judged by
/// its IPv4 address, and a range written as `::ffff:a.b.c.d/n` (n ≥ 96) is read as the IPv4 range
/// it is. So `10.0.0.0/8` covers `::ffff:10.1.2.3`, and `::/0` does not cover `10.1.2.3`.
public struct AddressRange: Sendable, Hashable, CustomStringConvertible {
    /// The first address of the range: the host bits beyond the prefix are cleared when parsing,
    /// so `10.1.2.3/8` and `10.0.0.0/8` are one range.
    public let network: IPAddress
    public let prefixLength: Int

    /// Reads `10.1.2.3`, `10.0.0.0/8`, `::1`, `fd00::/8`, `[::1]` or `[fd00::]/8`. An address alone
    /// is a range of one. The address must be canonical (inet_pton: no `127.1`, no `0x7f.0.0.1`)
    /// and the prefix plain decimal digits within the family's bounds (/0–/32, /0–/128).
    public init?(_ text: String) {
        var addressText = Substring(text)
        var lengthText: Substring?
        if let slash = text.lastIndex(of: "/") {
            addressText = text[..<slash]
            lengthText = text[text.index(after: slash)...]
        }
        if addressText.hasPrefix("[") && addressText.hasSuffix("]") && addressText.count >= 2 {
            addressText = addressText.dropFirst().dropLast()
            guard addressText.contains(":") else { return nil }  // brackets are for IPv6 only
        }
        guard let address = IPAddress(String(addressText)) else { return nil }
        let bits = address.bitCount
        var length = bits
        if let lengthText {
            // Int("+8") is 8: accept only digits, and few enough of them that no overflow is possible.
            guard !lengthText.isEmpty, lengthText.count <= 3, lengthText.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let value = Int(lengthText), value <= bits else { return nil }
            length = value
        }
        if case .v6(let bytes) = address, length >= 96, let v4 = IPAddress.mappedIPv4(bytes) {
            self.init(masking: .v4(v4), prefixLength: length - 96)
        } else {
            self.init(masking: address, prefixLength: length)
        }
    }

    private init(masking address: IPAddress, prefixLength: Int) {
        self.prefixLength = prefixLength
        switch address {
        case .v4(let value):
            network = .v4(value & Self.v4Mask(prefixLength))
        case .v6(let bytes):
            network = .v6(bytes.indices.map { bytes[$0] & Self.v6MaskByte($0, prefixLength) })
        }
    }

    public func contains(_ address: IPAddress) -> Bool {
        switch (network, address.unmapped) {
        case (.v4(let first), .v4(let value)):
            return value & Self.v4Mask(prefixLength) == first
        case (.v6(let first), .v6(let bytes)):
            return bytes.indices.allSatisfy { bytes[$0] & Self.v6MaskByte($0, prefixLength) == first[$0] }
        default:
            return false
        }
    }

    public var description: String { "\(network)/\(prefixLength)" }

    private static func v4Mask(_ length: Int) -> UInt32 {
        length == 0 ? 0 : UInt32.max << (32 - length)
    }

    /// The mask of byte `index` of a 16-byte address under a prefix of `length` bits.
    private static func v6MaskByte(_ index: Int, _ length: Int) -> UInt8 {
        let bitsInByte = min(max(length - index * 8, 0), 8)
        return bitsInByte == 0 ? 0 : UInt8.max << (8 - bitsInByte)
    }
}

extension IPAddress {
    fileprivate var bitCount: Int {
        switch self {
        case .v4: 32
        case .v6: 128
        }
    }

    /// The IPv4 address inside `::ffff:a.b.c.d`, or nil for any other IPv6 address.
    fileprivate static func mappedIPv4(_ bytes: [UInt8]) -> UInt32? {
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff else {
            return nil
        }
        return bytes[12..<16].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// An IPv4-mapped IPv6 address as the IPv4 address it stands for; any other address as it is.
    fileprivate var unmapped: IPAddress {
        if case .v6(let bytes) = self, let v4 = Self.mappedIPv4(bytes) { return .v4(v4) }
        return self
    }
}
