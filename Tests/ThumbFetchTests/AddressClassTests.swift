import Testing
@testable import ThumbFetch

/// The SSRF guard's view of an address, from literals only: nothing here connects anywhere.
@Suite(.timeLimit(.minutes(2)))
struct AddressClassTests {
    /// Every row of the IANA IPv4 and IPv6 Special-Purpose Address Registries, by its first and
    /// last address (and the sub-rows inside it), with the multicast and reserved blocks and the
    /// neighbours just outside each row.
    @Test(arguments: [
        // IPv4
        ("0.0.0.0", AddressClass.unusable), ("0.255.255.255", .unusable),        // 0.0.0.0/8 this network
        ("10.0.0.0", .privateNetwork), ("10.255.255.255", .privateNetwork),      // 10.0.0.0/8 private-use
        ("100.64.0.0", .privateNetwork), ("100.127.255.255", .privateNetwork),   // 100.64.0.0/10 shared (CGNAT)
        ("127.0.0.0", .loopback), ("127.255.255.255", .loopback),                // 127.0.0.0/8 loopback
        ("169.254.0.0", .linkLocal), ("169.254.169.254", .linkLocal), ("169.254.255.255", .linkLocal),
        ("172.16.0.0", .privateNetwork), ("172.31.255.255", .privateNetwork),    // 172.16.0.0/12 private-use
        ("192.0.0.0", .privateNetwork), ("192.0.0.7", .privateNetwork),          // 192.0.0.0/29 DS-Lite
        ("192.0.0.8", .unusable),                                                // IPv4 dummy address
        ("192.0.0.9", .global), ("192.0.0.10", .global),                         // PCP, TURN anycast
        ("192.0.0.170", .privateNetwork), ("192.0.0.171", .privateNetwork),      // NAT64/DNS64 discovery
        ("192.0.0.255", .privateNetwork),                                        // 192.0.0.0/24 the rest
        ("192.0.2.0", .unusable), ("192.0.2.255", .unusable),                    // TEST-NET-1
        ("192.31.196.0", .global), ("192.31.196.255", .global),                  // AS112-v4
        ("192.52.193.0", .global), ("192.52.193.255", .global),                  // AMT
        ("192.88.99.0", .unusable), ("192.88.99.255", .unusable),                // deprecated 6to4 relay anycast
        ("192.168.0.0", .privateNetwork), ("192.168.255.255", .privateNetwork),  // 192.168.0.0/16 private-use
        ("192.175.48.0", .global), ("192.175.48.255", .global),                  // direct delegation AS112
        ("198.18.0.0", .privateNetwork), ("198.19.255.255", .privateNetwork),    // 198.18.0.0/15 benchmarking
        ("198.51.100.0", .unusable), ("198.51.100.255", .unusable),              // TEST-NET-2
        ("203.0.113.0", .unusable), ("203.0.113.255", .unusable),                // TEST-NET-3
        ("224.0.0.0", .unusable), ("239.255.255.255", .unusable),                // multicast
        ("240.0.0.0", .unusable), ("255.255.255.254", .unusable),                // reserved
        ("255.255.255.255", .unusable),                                          // limited broadcast
        // IPv4 neighbours of the rows: global
        ("1.0.0.0", .global), ("9.255.255.255", .global), ("11.0.0.0", .global), ("100.63.255.255", .global),
        ("100.128.0.0", .global), ("126.255.255.255", .global), ("128.0.0.0", .global),
        ("169.253.255.255", .global), ("169.255.0.0", .global), ("172.15.255.255", .global), ("172.32.0.0", .global),
        ("191.255.255.255", .global), ("192.0.1.0", .global), ("192.0.3.0", .global), ("192.88.98.255", .global),
        ("192.88.100.0", .global), ("192.167.255.255", .global), ("192.169.0.0", .global),
        ("198.17.255.255", .global), ("198.20.0.0", .global), ("198.51.99.255", .global), ("198.51.101.0", .global),
        ("203.0.112.255", .global), ("203.0.114.0", .global), ("223.255.255.255", .global), ("8.8.8.8", .global),
        // IPv6
        ("::1", .loopback),                                                      // loopback
        ("::", .unusable),                                                       // unspecified
        // ::ffff:0:0/96 IPv4-mapped: judged by the IPv4 address
        ("::ffff:0.0.0.0", .unusable), ("::ffff:127.0.0.1", .loopback), ("::ffff:10.0.0.1", .privateNetwork),
        ("::ffff:169.254.169.254", .linkLocal), ("::ffff:198.18.0.1", .privateNetwork),
        ("::ffff:192.0.2.1", .unusable), ("::ffff:8.8.8.8", .global), ("::ffff:255.255.255.255", .unusable),
        // 64:ff9b::/96 well-known NAT64: global for a global IPv4 address only
        ("64:ff9b::808:808", .global), ("64:ff9b::7f00:1", .embeddedIPv4), ("64:ff9b::a00:1", .embeddedIPv4),
        ("64:ff9b::a9fe:a9fe", .embeddedIPv4), ("64:ff9b::c000:8", .unusable), ("64:ff9b::ffff:ffff", .unusable),
        ("64:ff9b::", .unusable),
        // 64:ff9b:1::/48 local-use NAT64
        ("64:ff9b:1::", .embeddedIPv4), ("64:ff9b:1::a00:1", .embeddedIPv4),
        ("64:ff9b:1:ffff:ffff:ffff:ffff:ffff", .embeddedIPv4),
        ("64:ff9b:2::1", .unusable), ("64:ff9b::1:0:0", .unusable),             // reserved around them
        ("100::", .unusable), ("100::ffff:ffff:ffff:ffff", .unusable),            // 100::/64 discard-only
        ("100:0:0:1::", .unusable), ("100:0:0:1:ffff:ffff:ffff:ffff", .unusable), // 100:0:0:1::/64 dummy
        ("2001::", .embeddedIPv4), ("2001:0:ffff:ffff:ffff:ffff:ffff:ffff", .embeddedIPv4), // Teredo
        ("2001:1::1", .global), ("2001:1::2", .global), ("2001:1::3", .global), // PCP, TURN, DNS-SD SRP anycast
        ("2001:1::", .unusable), ("2001:1::4", .unusable),
        ("2001:2::", .privateNetwork), ("2001:2:0:ffff:ffff:ffff:ffff:ffff", .privateNetwork), // benchmarking
        ("2001:2:1::", .unusable),
        ("2001:3::", .global), ("2001:3:ffff:ffff:ffff:ffff:ffff:ffff", .global), // AMT
        ("2001:4:112::", .global), ("2001:4:112:ffff:ffff:ffff:ffff:ffff", .global), // AS112-v6
        ("2001:4:113::", .unusable),
        ("2001:10::", .unusable), ("2001:1f:ffff:ffff:ffff:ffff:ffff:ffff", .unusable), // deprecated ORCHID
        ("2001:20::", .global), ("2001:2f:ffff:ffff:ffff:ffff:ffff:ffff", .global),     // ORCHIDv2
        ("2001:30::", .global), ("2001:3f:ffff:ffff:ffff:ffff:ffff:ffff", .global),     // drone remote ID
        ("2001:40::", .unusable), ("2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", .unusable), // 2001::/23 the rest
        ("2001:200::", .global),
        ("2001:db8::", .unusable), ("2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", .unusable), // documentation
        ("2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", .global), ("2001:db9::", .global),
        ("2002::", .embeddedIPv4), ("2002:7f00:1::", .embeddedIPv4),                     // 6to4
        ("2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .embeddedIPv4),
        ("2620:4f:8000::", .global), ("2620:4f:8000:ffff:ffff:ffff:ffff:ffff", .global), // AS112 direct
        ("3fff::", .unusable), ("3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", .unusable),   // documentation
        ("3fff:1000::", .global),
        ("2000::", .global), ("2001:4860:4860::8888", .global), ("2a00:1450:4001::1", .global), // global unicast
        ("3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .global),
        ("5f00::", .privateNetwork), ("5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .privateNetwork), // SRv6 SIDs
        ("fc00::", .privateNetwork), ("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .privateNetwork), // unique-local
        ("fe80::", .linkLocal), ("febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .linkLocal),           // link-local
        ("fec0::", .privateNetwork), ("feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .privateNetwork), // site-local
        ("ff00::", .unusable), ("ff02::1", .unusable), ("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .unusable),
        // reserved by the IETF: everything outside the rows and 2000::/3
        ("::2", .unusable), ("::127.0.0.1", .unusable), ("::ffff:0:a00:1", .unusable), ("1::1", .unusable),
        ("1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .unusable), ("4000::", .unusable),
        ("5eff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .unusable), ("5f01::", .unusable), ("e000::", .unusable),
    ])
    func classifies(_ literal: String, as expected: AddressClass) throws {
        let address = try #require(IPAddress(literal))

        #expect(AddressClass(address) == expected)
    }

    @Test(arguments: [
        "not an ip", "2130706433", "127.1", "0x7f.0.0.1", "127.0.0.1 ", "", "::ffff:127.0.0.1.1", "localhost",
    ])
    func onlyCanonicalLiteralsParse(_ text: String) {
        // inet_pton accepts dotted quads and IPv6 text only, never the shorthand forms inet_aton takes
        #expect(IPAddress(text) == nil)
    }

    @Test(arguments: ["127.0.0.1", "8.8.8.8", "::1", "2001:4860:4860::8888", "::ffff:10.0.0.1"])
    func descriptionSpellsTheAddressBack(_ literal: String) throws {
        let address = try #require(IPAddress(literal))

        #expect(IPAddress(address.description) == address)
    }

    // MARK: AddressPolicy

    /// One or more addresses of every class.
    static let samples: [(String, AddressClass)] = [
        ("8.8.8.8", .global), ("2001:4860:4860::8888", .global),
        ("127.0.0.1", .loopback), ("::1", .loopback), ("::ffff:127.0.0.1", .loopback),
        ("10.0.0.1", .privateNetwork), ("100.64.0.1", .privateNetwork), ("fd12::1", .privateNetwork),
        ("169.254.169.254", .linkLocal), ("fe80::1", .linkLocal),
        ("64:ff9b::7f00:1", .embeddedIPv4), ("2002:7f00:1::", .embeddedIPv4),
        ("0.0.0.0", .unusable), ("::", .unusable), ("224.0.0.1", .unusable), ("255.255.255.255", .unusable),
    ]

    @Test(arguments: [
        ("default", AddressPolicy(), [.global]),
        ("loopback allowed", AddressPolicy(allowLoopback: true), [.global, .loopback]),
        // embedded IPv4 may lead to any network, so only the private-network setting opens it
        ("private allowed", AddressPolicy(allowPrivate: true), [.global, .privateNetwork, .embeddedIPv4]),
        ("link-local allowed", AddressPolicy(allowLinkLocal: true), [.global, .linkLocal]),
        ("everything allowed", AddressPolicy(allowLoopback: true, allowPrivate: true, allowLinkLocal: true),
         [.global, .loopback, .privateNetwork, .embeddedIPv4, .linkLocal]),
    ] as [(String, AddressPolicy, Set<AddressClass>)])
    func policyOpensOnlyTheClassesItNames(_ what: String, policy: AddressPolicy, open: Set<AddressClass>) throws {
        for (literal, addressClass) in Self.samples {
            let address = try #require(IPAddress(literal))

            #expect(policy.allows(address) == open.contains(addressClass), "\(what): \(literal) (\(addressClass))")
        }
    }
}
