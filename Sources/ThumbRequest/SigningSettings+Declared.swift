import ThumbRuntime

/// The signing settings, and the rules between keys, salts and insecure mode. Neither a key nor
/// insecure mode is not a problem here: what serves or signs URLs says so (`signingProblem`).
extension SigningSettings: DeclaresSettings {
    public static let settings: [Setting<SigningSettings>] = [
        Setting("KEY", imgproxy: true, secret: true, reloads: true,
                .field(\.keys, read: SettingText.hexList, show: Self.hexList),
                default: .none,
                help: "Signing key(s), hex, comma-separated. Serving needs a key, or --insecure."),
        Setting("SALT", imgproxy: true, secret: true, reloads: true,
                .field(\.salts, read: SettingText.hexList, show: Self.hexList),
                default: .none,
                help: "Signing salt(s), hex, one per key."),
        Setting("SIGNATURE_SIZE", imgproxy: true, reloads: true,
                .integer(\.size, SignatureVerifier.minimumSize...32, why: "a shorter signature can be found by trying"),
                help: "Bytes of the signature to compare.",
                details: "Bytes of the HMAC the signature carries (8–32; imgproxy allows 1–32, but fewer than 8 "
                    + "bytes can be found by trying)."),
        Setting("INSECURE",
                .flag(\.insecure),
                help: "Serve URLs without checking their signature (no key): anyone may ask for any thumbnail."),
        Setting("TRUSTED_SIGNATURES", imgproxy: true, secret: true, reloads: true,
                .field(\.trusted, read: Self.trustedSignatures, show: { $0.joined(separator: ",") }),
                default: .none,
                help: "Signatures accepted without checking, comma-separated, each of 16 characters or more.",
                details: "Signatures accepted without checking, comma-separated, even with a KEY set (a URL "
                    + "signed by a tool that cannot sign, say); each is as good as a key for the paths it comes "
                    + "with, so each must have 16 characters or more. Such a signature passes with any path, so "
                    + "it names no file nginx serves: its thumbnails are stored privately, and every request "
                    + "with it reaches thumbd. Files an older thumbd stored under it are removed at start."),
    ]

    public func validate() -> [SettingProblem] {
        if insecure {
            guard keys.isEmpty && salts.isEmpty && trusted.isEmpty else {
                return [SettingProblem("INSECURE is on but KEY, SALT or TRUSTED_SIGNATURES is set: give a key to sign "
                    + "URLs, or insecure mode, not both")]
            }
            return []
        }
        guard keys.count == salts.count else {
            return [SettingProblem("KEY has \(keys.count) key(s) but SALT has \(salts.count) salt(s): give one salt "
                + "per key")]
        }
        return []
    }

    private static func hexList(_ list: [[UInt8]]) -> String {
        list.map { bytes in bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }.joined(separator: ",")
    }

    /// Said by position and length only: the value is a secret.
    private static func trustedSignatures(_ text: String) throws -> [String] {
        let trusted = SettingText.list(text)
        let short = trusted.indices.filter { trusted[$0].utf8.count < SignatureVerifier.minimumTrustedLength }
        guard short.isEmpty else {
            let named = short.map { "signature \($0 + 1) of \(trusted.count) has \(trusted[$0].utf8.count)" }
            throw InvalidSetting(expected: "\(named.joined(separator: ", ")) characters, fewer than "
                + "\(SignatureVerifier.minimumTrustedLength): a trusted signature passes with any path, so it must "
                + "be as hard to guess as a key", quotesValue: false)
        }
        return trusted
    }
}
