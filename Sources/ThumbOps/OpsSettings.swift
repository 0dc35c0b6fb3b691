import ThumbRequest

/// What `warm` and `sign` read of thumbd's settings, which the executable composes from every
/// stage's table and loads: the commands are generic over it, so that they need not depend on the
/// executable, and read the settings exactly as `serve` does.
public protocol OpsSettings: Sendable {
    /// The settings' flags this command line was given, by setting name.
    static var givenFlags: [String: String] { get }
    /// The settings' flags `command` takes, each with its help, for the command's `--help`.
    static func flagsHelp(for command: String) -> String
    /// The settings from `flags`, then the environment and the settings file. On any problem,
    /// lists them all and exits 2; `signingURLs` asks for a key or insecure mode too.
    static func commandLine(flags: [String: String], signingURLs: Bool) throws -> Self

    var signing: SignatureVerifier { get }
    var options: OptionParser { get }
}
