/// Which addresses thumbd may fetch sources from: whole classes (imgproxy's
/// ALLOW_*_SOURCE_ADDRESSES settings; private networks are refused by default here), and single
/// ranges an operator names, so one internal image server can be reached without opening every
/// private network.
public struct AddressPolicy: Sendable {
    public var allowLoopback = false
    public var allowPrivate = false
    public var allowLinkLocal = false
    /// Addresses allowed whatever their class, except `.unusable`.
    public var allowedRanges: [AddressRange] = []

    public init(
        allowLoopback: Bool = false, allowPrivate: Bool = false, allowLinkLocal: Bool = false,
        allowedRanges: [AddressRange] = []
    ) {
        self.allowLoopback = allowLoopback
        self.allowPrivate = allowPrivate
        self.allowLinkLocal = allowLinkLocal
        self.allowedRanges = allowedRanges
    }

    /// An unusable address stays refused even inside an allowed range: 0.0.0.0 and `::` connect to
    /// this very host on Linux, and multicast, broadcast and reserved addresses are never an
    /// origin, so a range such as `0.0.0.0/0` must not open them.
    public func allows(_ address: IPAddress) -> Bool {
        let addressClass = AddressClass(address)
        if addressClass == .unusable { return false }
        if allowedRanges.contains(where: { $0.contains(address) }) { return true }
        switch addressClass {
        case .global: return true
        case .loopback: return allowLoopback
        case .privateNetwork, .embeddedIPv4: return allowPrivate
        case .linkLocal: return allowLinkLocal
        case .unusable: return false
        }
    }
}
