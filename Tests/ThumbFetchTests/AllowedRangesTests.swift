import Testing
@testable import ThumbFetch

/// Ranges an operator names open single addresses whatever their class, never unusable ones.
@Suite(.timeLimit(.minutes(2)))
struct AllowedRangesTests {
    static func policy(_ ranges: [String], allowPrivate: Bool = false) throws -> AddressPolicy {
        AddressPolicy(allowPrivate: allowPrivate, allowedRanges: try ranges.map { try #require(AddressRange($0)) })
    }

    static func allows(_ policy: AddressPolicy, _ literal: String) throws -> Bool {
        policy.allows(try #require(IPAddress(literal)))
    }

    @Test func oneLoopbackAddressOpensOnlyThatAddress() throws {
        // Given the default policy, then one that names 127.0.0.1
        let closed = AddressPolicy()
        let open = try Self.policy(["127.0.0.1"])

        // Then loopback is refused by default, the named address is allowed, its neighbours are not
        #expect(try !Self.allows(closed, "127.0.0.1"))
        #expect(try Self.allows(open, "127.0.0.1"))
        #expect(try Self.allows(open, "::ffff:127.0.0.1"))
        #expect(try !Self.allows(open, "127.0.0.2"))
        #expect(try !Self.allows(open, "::1"))
        #expect(!open.allowLoopback)
    }

    @Test(arguments: [
        ("10.0.0.1", true), ("10.255.255.254", true), ("::ffff:10.9.8.7", true),
        ("192.168.1.1", false), ("172.16.0.1", false), ("fd12::1", false), ("127.0.0.1", false),
        ("8.8.8.8", true),
    ])
    func privateRangeOpensThatRangeOnly(_ literal: String, _ expected: Bool) throws {
        let policy = try Self.policy(["10.0.0.0/8"])

        #expect(try Self.allows(policy, literal) == expected, "\(literal)")
    }

    @Test(arguments: [
        (["0.0.0.0"], "0.0.0.0"),
        (["0.0.0.0/0"], "0.0.0.0"),
        (["0.0.0.0/0"], "224.0.0.1"),
        (["0.0.0.0/0"], "255.255.255.255"),
        (["224.0.0.0/4"], "239.255.255.250"),
        (["::"], "::"),
        (["::/0"], "ff02::1"),
        (["::ffff:0.0.0.0/96"], "::ffff:0.0.0.0"),
    ])
    func unusableStaysRefusedEvenWhenListed(_ ranges: [String], _ literal: String) throws {
        // 0.0.0.0 and :: reach this host; multicast and broadcast are never an origin
        #expect(try !Self.allows(Self.policy(ranges), literal))
    }

    @Test func wholeInternetRangeStillOpensEveryUsableClass() throws {
        let policy = try Self.policy(["0.0.0.0/0", "::/0"])

        for (literal, addressClass) in AddressClassTests.samples {
            #expect(try Self.allows(policy, literal) == (addressClass != .unusable), "\(literal) (\(addressClass))")
        }
    }

    @Test func rangesAddToTheClassSwitches() throws {
        // Given private networks allowed and one loopback address named
        let policy = try Self.policy(["127.0.0.1"], allowPrivate: true)

        #expect(try Self.allows(policy, "192.168.1.1"))
        #expect(try Self.allows(policy, "127.0.0.1"))
        #expect(try !Self.allows(policy, "127.0.0.2"))
        #expect(try !Self.allows(policy, "169.254.169.254"))
    }
}
