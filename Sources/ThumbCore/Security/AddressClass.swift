/// What kind of network an address belongs to: the basis of the guard against requests to
/// thumbd's own machine or network (SSRF).
public enum AddressClass: String, Sendable {
    case global
    case loopback
    /// RFC 1918, RFC 4193 unique-local, CGNAT (RFC 6598), site-local.
    case privateNetwork = "private"
    case linkLocal = "link-local"
    /// IPv4 inside IPv6 that routes elsewhere: NAT64 (64:ff9b::/96, 64:ff9b:1::/48), 6to4 (2002::/16).
    case embeddedIPv4 = "embedded IPv4"
    /// Never a source: unspecified, multicast, broadcast, reserved.
    case unusable

    public init(_ address: IPAddress) {
        switch address {
        case .v4(let value): self = Self.classify(v4: value)
        case .v6(let bytes): self = Self.classify(v6: bytes)
        }
    }

    private static func classify(v4 value: UInt32) -> AddressClass {
        func within(_ prefix: UInt32, _ length: UInt32) -> Bool {
            value >> (32 - length) == prefix >> (32 - length)
        }
        if within(0x7f00_0000, 8) { return .loopback }
        if within(0x0a00_0000, 8) || within(0xac10_0000, 12) || within(0xc0a8_0000, 16) { return .privateNetwork }
        if within(0x6440_0000, 10) { return .privateNetwork }
        if within(0xa9fe_0000, 16) { return .linkLocal }
        if within(0x0000_0000, 8) || within(0xe000_0000, 4) || within(0xf000_0000, 4) { return .unusable }
        return .global
    }

    private static func classify(v6 bytes: [UInt8]) -> AddressClass {
        let zeroPrefix = bytes[0..<10].allSatisfy { $0 == 0 }
        if zeroPrefix && bytes[10] == 0xff && bytes[11] == 0xff {
            return classify(v4: embeddedV4(bytes))
        }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) {
            return bytes[15] == 1 ? .loopback : .unusable
        }
        if zeroPrefix && bytes[10] == 0 && bytes[11] == 0 {
            return classify(v4: embeddedV4(bytes))  // deprecated IPv4-compatible ::a.b.c.d
        }
        if bytes[0..<12] == [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0] { return .embeddedIPv4 }
        // RFC 8215's local-use NAT64 prefix: a site's own translator, to whatever IPv4 it maps.
        if bytes[0..<6] == [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01] { return .embeddedIPv4 }
        if bytes[0] == 0x20 && bytes[1] == 0x02 { return .embeddedIPv4 }
        if bytes[0] & 0xfe == 0xfc { return .privateNetwork }
        if bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80 { return .linkLocal }
        if bytes[0] == 0xfe && bytes[1] & 0xc0 == 0xc0 { return .privateNetwork }
        if bytes[0] == 0xff { return .unusable }
        return .global
    }

    private static func embeddedV4(_ bytes: [UInt8]) -> UInt32 {
        bytes[12..<16].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
