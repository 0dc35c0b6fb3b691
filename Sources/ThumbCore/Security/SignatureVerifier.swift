import Crypto

/// imgproxy's URL signature: base64url(HMAC-SHA256(key, salt + path)), truncated to `size`
/// bytes. Several key/salt pairs may be valid at once, so keys can be rotated.
public struct SignatureVerifier: Sendable {
    public struct KeyPair: Sendable {
        public let key: [UInt8]
        public let salt: [UInt8]

        public init(key: [UInt8], salt: [UInt8]) {
            self.key = key
            self.salt = salt
        }
    }

    public let pairs: [KeyPair]
    public let size: Int

    /// With no pairs, every signature is accepted (imgproxy's behaviour without a key).
    public init(pairs: [KeyPair], size: Int = 32) {
        self.pairs = pairs
        self.size = size
    }

    public func signature(for path: Substring, with pair: KeyPair) -> String {
        var mac = HMAC<SHA256>(key: SymmetricKey(data: pair.key))
        mac.update(data: pair.salt)
        mac.update(data: Array(path.utf8))
        return Base64URL.encode(Array(mac.finalize()).prefix(size))
    }

    /// `path` (options, then the source) as a client asks for it: signed with the first pair, the
    /// one a rotation signs new URLs with, or behind `insecure` when there is no key.
    public func signedPath(_ path: String) -> String {
        let signature = pairs.first.map { self.signature(for: Substring(path), with: $0) } ?? "insecure"
        return "/\(signature)\(path)"
    }

    public func verify(signature: Substring, path: Substring) throws(ThumbError) {
        guard !pairs.isEmpty else { return }
        let given = Array(signature.utf8)
        for pair in pairs where Self.constantTimeEqual(given, Array(self.signature(for: path, with: pair).utf8)) {
            return
        }
        throw .forbidden("invalid signature")
    }

    /// Compares without an early exit, so the time taken does not tell how much matched.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
