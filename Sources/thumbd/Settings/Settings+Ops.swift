import ThumbOps

/// `warm` and `sign` read the settings as every command does.
extension Settings: OpsSettings {
    public static var givenFlags: [String: String] { SettingFlags.given }
    public static func flagsHelp(for command: String) -> String { SettingFlags.help(for: command) }
}
