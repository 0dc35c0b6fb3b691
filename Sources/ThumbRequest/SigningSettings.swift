/// The signing settings as given: keys and salts in pairs, the signature's size, signatures
/// trusted unchecked, or insecure mode by name. `verifier` is what they make.
public struct SigningSettings: Sendable {
    public var keys: [[UInt8]] = []
    public var salts: [[UInt8]] = []
    public var size = 32
    public var insecure = false
    public var trusted: [String] = []

    public init() {}

    /// No key and not insecure: no URL verifies (an empty KEY leaves every URL refused, never every
    /// URL accepted).
    public var verifier: SignatureVerifier {
        guard !insecure else { return .insecure }
        let pairs = zip(keys, salts).map(SignatureVerifier.KeyPair.init)
        return SignatureVerifier(pairs: pairs, size: size, trusted: trusted)
    }
}
