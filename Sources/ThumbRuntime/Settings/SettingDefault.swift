/// Where a setting's default, as the docs and `--help` show it, comes from.
public enum SettingDefault: Sendable {
    /// The field's own default value, read from the settings type made with `init()`.
    case field
    /// None: the setting is off or empty unless given.
    case none
    /// Words, where the value depends on the machine or on other settings.
    case described(String)
}
