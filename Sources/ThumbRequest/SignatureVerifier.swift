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

    /// How a URL's signature passed. Only an HMAC of the path says which URL it belongs to, so
    /// only that one may name a file nginx serves for every URL that carries it (CachePath).
    public enum Verification: Sendable, Equatable {
        /// An HMAC of this path under a configured key.
        case hmac
        /// A TRUSTED_SIGNATURES entry: it passes with any path, so it tells no URL from another.
        case trusted
        /// Insecure mode: nothing was checked.
        case unchecked
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

    /// The fewest characters a trusted signature has: it opens every path, so it must be as hard
    /// to guess as a key (16 base64url characters are 96 bits).
    public static let minimumTrustedLength = 16

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

    @discardableResult
    public func verify(signature: Substring, path: Substring) throws(RequestFailure) -> Verification {
        try verify(signature: Array(signature.utf8), path: Array(path.utf8))
    }

    /// A trusted signature is taken as trusted even where it is also some path's HMAC: the files
    /// nginx serves by it would otherwise answer every other URL that carries it.
    @discardableResult
    public func verify(signature given: [UInt8], path: [UInt8]) throws(RequestFailure) -> Verification {
        guard !acceptsAnySignature else { return .unchecked }
        for signature in trusted where Self.constantTimeEqual(given, signature) {
            return .trusted
        }
        for pair in pairs where Self.constantTimeEqual(given, Array(self.signature(for: path, with: pair).utf8)) {
            return .hmac
        }
        throw .forbidden("invalid signature")
    }

    /// The trusted signatures as written in the settings.
    public var trustedSignatures: [String] { trusted.map { String(decoding: $0, as: UTF8.self) } }

    /// Compares without an early exit, so the time taken does not tell how much matched.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
