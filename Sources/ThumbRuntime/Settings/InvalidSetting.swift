/// Why a setting's value was refused, in words that follow the value in the message
/// (`IMGPROXY_WORKERS="0": expected a whole number from 1 to 1024`).
public struct InvalidSetting: Error, Sendable {
    public let expected: String
    /// Whether the message quotes the value: not where it names the part it refused by position,
    /// because the value is a secret.
    public let quotesValue: Bool

    public init(expected: String, quotesValue: Bool = true) {
        self.expected = expected
        self.quotesValue = quotesValue
    }
}
