import ThumbOps

/// `warm` and `sign` read the settings as every command does.
extension Settings: OpsSettings {
    public static var givenFlags: [String: String] { SettingFlags.given }
    public static var flagsHelp: String { SettingFlags.help }
}
