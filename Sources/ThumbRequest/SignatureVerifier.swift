import Crypto
import ThumbRuntime

/// imgproxy's URL signature: base64url(HMAC-SHA256(key, salt + path)), truncated to `size`
/// bytes. Several key/salt pairs may be valid at once, so keys can be rotated. Without a pair
/// nothing verifies: accepting every URL is `insecure`, asked for by name, never what an empty
/// key falls back to.
public struct SignatureVerifier: Sendable {
    public struct KeyPair: Sendable {
        public let key: [UInt8]
        public let salt: [UInt8]
        /// HMAC with the key set up and the salt taken in, once: each request adds its path to a
        /// copy. Shared safely: swift-crypto's digest state is copy-on-write (isKnownUniquelyReferenced).
        nonisolated(unsafe) let salted: HMAC<SHA256>

        public init(key: [UInt8], salt: [UInt8]) {
            self.key = key
            self.salt = salt
            var mac = HMAC<SHA256>(key: SymmetricKey(data: key))
            mac.update(data: salt)
            salted = mac
        }
    }

    public let pairs: [KeyPair]
    /// imgproxy's TRUSTED_SIGNATURES: accepted for any path, without checking.
    public let trusted: [[UInt8]]
    public let size: Int
    /// Every signature passes (imgproxy's behaviour without a key).
    public let acceptsAnySignature: Bool

    /// The fewest signature bytes thumbd takes: 8 bytes are 2^64 guesses, fewer can be found by
    /// trying (imgproxy allows down to 1).
    public static let minimumSize = 8

    public init(pairs: [KeyPair], size: Int = 32, trusted: [String] = []) {
        self.init(pairs: pairs, size: size, acceptsAnySignature: false, trusted: trusted.map { Array($0.utf8) })
    }

    private init(pairs: [KeyPair], size: Int, acceptsAnySignature: Bool, trusted: [[UInt8]] = []) {
        self.pairs = pairs
        self.trusted = trusted
        self.size = size
        self.acceptsAnySignature = acceptsAnySignature
    }

    /// Insecure mode: URLs are not signed, any signature segment passes.
    public static let insecure = SignatureVerifier(pairs: [], size: 32, acceptsAnySignature: true)

    /// Whether URLs can verify at all: a key is set, or insecure mode was asked for.
    public var isConfigured: Bool { acceptsAnySignature || !pairs.isEmpty || !trusted.isEmpty }

    public func signature(for path: Substring, with pair: KeyPair) -> String {
        signature(for: Array(path.utf8), with: pair)
    }

    /// Over the path's bytes as the client sent them: two paths that differ in any byte (one
    /// that is not UTF-8 included) never share a signature.
    public func signature(for path: [UInt8], with pair: KeyPair) -> String {
        var mac = pair.salted
        mac.update(data: path)
        return Base64URL.encode(Array(mac.finalize()).prefix(size))
    }

    /// `path` (options, then the source) as a client asks for it: signed with the first pair, the
    /// one a rotation signs new URLs with, or behind `insecure` when there is no key.
    public func signedPath(_ path: String) -> String {
        let signature = pairs.first.map { self.signature(for: Substring(path), with: $0) } ?? "insecure"
        return "/\(signature)\(path)"
    }

    public func verify(signature: Substring, path: Substring) throws(ThumbError) {
        try verify(signature: Array(signature.utf8), path: Array(path.utf8))
    }

    public func verify(signature given: [UInt8], path: [UInt8]) throws(ThumbError) {
        guard !acceptsAnySignature else { return }
        for signature in trusted where Self.constantTimeEqual(given, signature) {
            return
        }
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
