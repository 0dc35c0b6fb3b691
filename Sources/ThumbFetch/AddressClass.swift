/// What kind of network an address belongs to: the basis of the guard against requests to
/// thumbd's own machine or network (SSRF).
///
/// Read from the IANA IPv4 and IPv6 Special-Purpose Address Registries, row by row (the tables
/// below, most specific first), with the address space registries' multicast and reserved blocks:
/// a row that is globally reachable is `global`, one that is not is the class an operator must
/// open to reach it, and a row that can never be an origin (documentation, discard, dummy,
/// deprecated, reserved) is `unusable`.
public enum AddressClass: String, Sendable {
    case global
    case loopback
    /// RFC 1918, RFC 4193 unique-local, CGNAT (RFC 6598), site-local, benchmarking, DS-Lite, SRv6.
    case privateNetwork = "private"
    case linkLocal = "link-local"
    /// IPv4 inside IPv6 that routes elsewhere: local-use NAT64 (64:ff9b:1::/48), 6to4 (2002::/16),
    /// Teredo (2001::/32), and the well-known NAT64 prefix around a non-global IPv4 address.
    case embeddedIPv4 = "embedded IPv4"
    /// Never a source: unspecified, multicast, broadcast, documentation, reserved.
    case unusable

    public init(_ address: IPAddress) {
        switch address {
        case .v4:
            self = Self.row(of: address, in: Self.ipv4Registry)
        case .v6(let bytes):
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
                self = AddressClass(Self.embeddedV4(bytes))  // IPv4-mapped: the IPv4 address it is
            } else if bytes[0..<12].elementsEqual([0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0]) {
                // The well-known NAT64 prefix (RFC 6052) reaches the IPv4 address it carries, and may
                // carry only a global one; a translator that takes another may lead anywhere.
                self = switch AddressClass(Self.embeddedV4(bytes)) {
                case .global: .global
                case .unusable: .unusable
                default: .embeddedIPv4
                }
            } else {
                self = Self.row(of: address, in: Self.ipv6Registry)
            }
        }
    }

    private static func row(of address: IPAddress, in registry: [(AddressRange, AddressClass)]) -> AddressClass {
        registry.first { $0.0.contains(address) }?.1 ?? .global
    }

    private static func embeddedV4(_ bytes: [UInt8]) -> IPAddress {
        .v4(bytes[12..<16].reduce(0) { $0 << 8 | UInt32($1) })
    }

    private static func rows(_ rows: [(String, AddressClass)]) -> [(AddressRange, AddressClass)] {
        rows.map { (AddressRange($0.0)!, $0.1) }
    }

    /// Everything not listed is global.
    static let ipv4Registry = rows([
        ("0.0.0.0/8", .unusable),           // "this network" (RFC 791), 0.0.0.0/32 "this host"
        ("10.0.0.0/8", .privateNetwork),     // private-use (RFC 1918)
        ("100.64.0.0/10", .privateNetwork),  // shared address space, CGNAT (RFC 6598)
        ("127.0.0.0/8", .loopback),          // loopback (RFC 1122)
        ("169.254.0.0/16", .linkLocal),      // link local (RFC 3927), cloud metadata services
        ("172.16.0.0/12", .privateNetwork),  // private-use (RFC 1918)
        ("192.0.0.8/32", .unusable),         // IPv4 dummy address (RFC 7600)
        ("192.0.0.9/32", .global),           // Port Control Protocol anycast (RFC 7723)
        ("192.0.0.10/32", .global),          // TURN anycast (RFC 8155)
        ("192.0.0.0/24", .privateNetwork),   // IETF protocol assignments: DS-Lite (RFC 7335), NAT64 discovery (RFC 8880)
        ("192.0.2.0/24", .unusable),         // documentation, TEST-NET-1 (RFC 5737)
        ("192.31.196.0/24", .global),        // AS112-v4 (RFC 7535)
        ("192.52.193.0/24", .global),        // AMT (RFC 7450)
        ("192.88.99.0/24", .unusable),       // deprecated 6to4 relay anycast (RFC 7526)
        ("192.168.0.0/16", .privateNetwork), // private-use (RFC 1918)
        ("192.175.48.0/24", .global),        // direct delegation AS112 service (RFC 7534)
        ("198.18.0.0/15", .privateNetwork),  // benchmarking (RFC 2544)
        ("198.51.100.0/24", .unusable),      // documentation, TEST-NET-2 (RFC 5737)
        ("203.0.113.0/24", .unusable),       // documentation, TEST-NET-3 (RFC 5737)
        ("224.0.0.0/4", .unusable),          // multicast (RFC 5771)
        ("240.0.0.0/4", .unusable),          // reserved (RFC 1112), 255.255.255.255/32 limited broadcast (RFC 919)
    ])

    /// IPv4-mapped addresses (::ffff:0:0/96) and the well-known NAT64 prefix (64:ff9b::/96) are
    /// judged by their IPv4 address before these rows. Global unicast is 2000::/3 only: the rest of
    /// the space is reserved by the IETF.
    static let ipv6Registry = rows([
        ("::1/128", .loopback),              // loopback (RFC 4291)
        ("64:ff9b:1::/48", .embeddedIPv4),   // local-use IPv4/IPv6 translation (RFC 8215)
        ("100::/64", .unusable),             // discard-only (RFC 6666)
        ("100:0:0:1::/64", .unusable),       // dummy prefix (RFC 9780)
        ("2001::/32", .embeddedIPv4),        // Teredo (RFC 4380): a client's IPv4 address and its server's
        ("2001:1::1/128", .global),          // Port Control Protocol anycast (RFC 7723)
        ("2001:1::2/128", .global),          // TURN anycast (RFC 8155)
        ("2001:1::3/128", .global),          // DNS-SD service registration anycast (RFC 9665)
        ("2001:2::/48", .privateNetwork),    // benchmarking (RFC 5180)
        ("2001:3::/32", .global),            // AMT (RFC 7450)
        ("2001:4:112::/48", .global),        // AS112-v6 (RFC 7535)
        ("2001:10::/28", .unusable),         // deprecated ORCHID (RFC 4843)
        ("2001:20::/28", .global),           // ORCHIDv2 (RFC 7343)
        ("2001:30::/28", .global),           // drone remote ID entity tags (RFC 9374)
        ("2001::/23", .unusable),            // IETF protocol assignments, the rest (RFC 2928)
        ("2001:db8::/32", .unusable),        // documentation (RFC 3849)
        ("2002::/16", .embeddedIPv4),        // 6to4 (RFC 3056)
        ("2620:4f:8000::/48", .global),      // direct delegation AS112 service (RFC 7534)
        ("3fff::/20", .unusable),            // documentation (RFC 9637)
        ("2000::/3", .global),               // global unicast (RFC 4291)
        ("5f00::/16", .privateNetwork),      // segment routing SIDs (RFC 9602)
        ("fc00::/7", .privateNetwork),       // unique-local (RFC 4193)
        ("fe80::/10", .linkLocal),           // link-local unicast (RFC 4291)
        ("fec0::/10", .privateNetwork),      // deprecated site-local (RFC 3879)
        ("ff00::/8", .unusable),             // multicast (RFC 4291)
        ("::/0", .unusable),                 // unspecified (::/128), IPv4-compatible (::/96), reserved
    ])
}
