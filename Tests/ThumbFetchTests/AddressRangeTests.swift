import Testing
@testable import ThumbFetch

/// Address ranges an operator names, from literals only: nothing here connects anywhere.
@Suite(.timeLimit(.minutes(2)))
struct AddressRangeTests {
    @Test(arguments: [
        ("10.1.2.3", "10.1.2.3/32"),
        ("10.0.0.0/8", "10.0.0.0/8"),
        ("0.0.0.0/0", "0.0.0.0/0"),
        ("192.168.1.0/24", "192.168.1.0/24"),
        ("::1", "::1/128"),
        ("fd00::/8", "fd00::/8"),
        ("[::1]", "::1/128"),
        ("[fd00::]/8", "fd00::/8"),
        ("::/0", "::/0"),
        ("2001:db8::/32", "2001:db8::/32"),
        ("10.0.0.0/08", "10.0.0.0/8"),
        // host bits beyond the prefix are cleared
        ("10.1.2.3/8", "10.0.0.0/8"),
        ("fd12:3456::1/16", "fd12::/16"),
        ("192.168.1.255/23", "192.168.0.0/23"),
        // an IPv4-mapped range is the IPv4 range it stands for
        ("::ffff:10.0.0.0/104", "10.0.0.0/8"),
        ("::ffff:127.0.0.1", "127.0.0.1/32"),
    ])
    func parses(_ text: String, as expected: String) throws {
        let range = try #require(AddressRange(text))

        #expect(range.description == expected)
    }

    @Test(arguments: [
        "", "/", "/8", "10.0.0.0/", "10.0.0.0/33", "::/129", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0.0/8/8",
        "10.0.0.0/ 8", " 10.0.0.0", "10.0.0.0/8 ", "10.0.0.0/x", "10.0.0.0/1000", "10.0.0.0/99999999999999999999",
        "127.1", "0x7f.0.0.1", "2130706433", "localhost", "example.com", "[10.0.0.1]", "[::1", "::1]", "[::1/8]",
        "[]", "fe80::1%eth0", "10.0.0.256", "10.0.0.0/8,10.1.0.0/16",
    ])
    func refuses(_ text: String) {
        #expect(AddressRange(text) == nil)
    }

    @Test func hostBitsDoNotMakeADifferentRange() throws {
        #expect(AddressRange("10.1.2.3/8") == AddressRange("10.0.0.0/8"))
        #expect(AddressRange("10.1.2.3/32") != AddressRange("10.1.2.4/32"))
    }

    @Test(arguments: [
        // IPv4
        ("10.0.0.0/8", "10.0.0.0", true),
        ("10.0.0.0/8", "10.255.255.255", true),
        ("10.0.0.0/8", "11.0.0.0", false),
        ("10.0.0.0/8", "9.255.255.255", false),
        ("10.1.2.3", "10.1.2.3", true),
        ("10.1.2.3", "10.1.2.4", false),
        ("192.168.4.0/22", "192.168.7.255", true),
        ("192.168.4.0/22", "192.168.8.0", false),
        ("192.168.4.0/22", "192.168.3.255", false),
        ("10.1.2.3/8", "10.200.0.1", true),
        ("0.0.0.0/0", "8.8.8.8", true),
        ("0.0.0.0/0", "255.255.255.255", true),
        ("128.0.0.0/1", "127.255.255.255", false),
        ("128.0.0.0/1", "128.0.0.0", true),
        // IPv6
        ("fd00::/8", "fd12::1", true),
        ("fd00::/8", "fc00::1", false),
        ("::1", "::1", true),
        ("::1", "::2", false),
        ("2001:db8::/33", "2001:db8:7fff::1", true),
        ("2001:db8::/33", "2001:db8:8000::1", false),
        ("::/0", "2001:4860:4860::8888", true),
        ("fe80::/10", "febf::1", true),
        ("fe80::/10", "fec0::1", false),
        // families do not mix, except that IPv4-mapped IPv6 is its IPv4 address
        ("10.0.0.0/8", "::ffff:10.1.2.3", true),
        ("10.0.0.0/8", "::ffff:11.1.2.3", false),
        ("127.0.0.1", "::ffff:127.0.0.1", true),
        ("0.0.0.0/0", "::1", false),
        ("0.0.0.0/0", "2001:db8::1", false),
        ("10.0.0.0/8", "::10.1.2.3", false),
        ("10.0.0.0/8", "64:ff9b::a01:203", false),
        ("::/0", "10.1.2.3", false),
        ("::/0", "::ffff:10.1.2.3", false),
        ("::ffff:10.0.0.0/104", "10.1.2.3", true),
        ("::ffff:10.0.0.0/104", "::ffff:10.1.2.3", true),
        ("::ffff:10.0.0.0/104", "11.1.2.3", false),
    ])
    func contains(_ range: String, _ address: String, _ expected: Bool) throws {
        let parsed = try #require(AddressRange(range))
        let ip = try #require(IPAddress(address))

        #expect(parsed.contains(ip) == expected, "\(range) contains \(address)")
    }
}
