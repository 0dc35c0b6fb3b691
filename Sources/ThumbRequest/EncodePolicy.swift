/// What a thumbnail's bytes depend on beyond the options a URL gives, as the renderer decides it:
/// the chroma each quality keeps, the encoder an AVIF is written with, WebP's colour conversion,
/// what autoquality's search reads. `ThumbnailKey` writes it after the options, so that a file
/// written under another policy is never taken for one written under this one. Policy, not
/// library versions: a Debian update of an encoder must not change every key.
public protocol EncodePolicy: Sendable {
    /// The key's fields for `options`, each after a `|`; empty where the policy adds nothing.
    func keyFields(for options: ProcessingOptions) -> String
}
