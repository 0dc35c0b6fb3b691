/// Which classes of address thumbd may fetch sources from (imgproxy's
/// ALLOW_*_SOURCE_ADDRESSES settings; private networks are refused by default here).
public struct AddressPolicy: Sendable {
    public var allowLoopback = false
    public var allowPrivate = false
    public var allowLinkLocal = false

    public init(allowLoopback: Bool = false, allowPrivate: Bool = false, allowLinkLocal: Bool = false) {
        self.allowLoopback = allowLoopback
        self.allowPrivate = allowPrivate
        self.allowLinkLocal = allowLinkLocal
    }

    public func allows(_ address: IPAddress) -> Bool {
        switch AddressClass(address) {
        case .global: true
        case .loopback: allowLoopback
        case .privateNetwork, .embeddedIPv4: allowPrivate
        case .linkLocal: allowLinkLocal
        case .unusable: false
        }
    }
}
