import Testing
@testable import ThumbCore

/// The SSRF guard's view of an address, from literals only: nothing here connects anywhere.
struct AddressClassTests {
    @Test(arguments: [
        // loopback
        ("127.0.0.1", AddressClass.loopback),
        ("127.255.255.254", .loopback),
        ("::1", .loopback),
        // private: RFC 1918, CGNAT, unique-local, site-local
        ("10.0.0.1", .privateNetwork),
        ("10.255.255.255", .privateNetwork),
        ("172.16.0.1", .privateNetwork),
        ("172.31.255.254", .privateNetwork),
        ("192.168.1.1", .privateNetwork),
        ("100.64.0.1", .privateNetwork),
        ("100.127.255.255", .privateNetwork),
        ("fc00::1", .privateNetwork),
        ("fd12::1", .privateNetwork),
        ("fec0::1", .privateNetwork),
        // link-local
        ("169.254.169.254", .linkLocal),
        ("169.254.0.1", .linkLocal),
        ("fe80::1", .linkLocal),
        // never a source: unspecified, multicast, broadcast, reserved
        ("0.0.0.0", .unusable),
        ("0.1.2.3", .unusable),
        ("::", .unusable),
        ("224.0.0.1", .unusable),
        ("239.255.255.250", .unusable),
        ("ff02::1", .unusable),
        ("255.255.255.255", .unusable),
        ("240.0.0.1", .unusable),
        // IPv4-mapped (and the deprecated IPv4-compatible) IPv6 is judged by its IPv4 address
        ("::ffff:127.0.0.1", .loopback),
        ("::ffff:10.0.0.1", .privateNetwork),
        ("::ffff:169.254.169.254", .linkLocal),
        ("::ffff:8.8.8.8", .global),
        ("::127.0.0.1", .loopback),
        // IPv4 embedded in IPv6 that routes elsewhere: NAT64, 6to4
        ("64:ff9b::7f00:1", .embeddedIPv4),
        ("64:ff9b::808:808", .embeddedIPv4),
        ("2002:7f00:1::", .embeddedIPv4),
        ("64:ff9b:1::a00:1", .embeddedIPv4),  // local-use NAT64 (RFC 8215), here to 10.0.0.1
        ("64:ff9b:1:ffff::", .embeddedIPv4),
        ("64:ff9b:2::1", .global),
        // global, including the edges next to private ranges
        ("8.8.8.8", .global),
        ("1.1.1.1", .global),
        ("172.32.0.1", .global),
        ("172.15.255.255", .global),
        ("100.128.0.1", .global),
        ("100.63.255.255", .global),
        ("11.0.0.1", .global),
        ("2001:4860:4860::8888", .global),
        ("2a00:1450:4001::1", .global),
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
