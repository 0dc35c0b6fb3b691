/// A rule among a stage's settings that its values break, found by the stage's `validate()`.
public struct SettingProblem: Sendable, Equatable {
    /// The setting the problem is told against, with its origin and value, as a bad value is; nil:
    /// the message names the settings itself.
    public let setting: String?
    public let message: String

    public init(_ message: String, about setting: String? = nil) {
        self.setting = setting
        self.message = message
    }
}
