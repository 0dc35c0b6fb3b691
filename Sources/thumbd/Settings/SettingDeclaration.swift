/// What one setting is: its name (THUMBD_<NAME>, and the IMGPROXY_ name of imgproxy's setting
/// that means the same, if there is one), the value it takes with its range, its default and its help. Everything else about a
/// setting (flag, environment names, file key, the check at start, `--help`, the docs' table) is
/// derived from this, so each is written once.
public struct SettingDeclaration: Sendable {
    /// The value a setting takes; numbers carry the range checked at start.
    public enum Value: Sendable {
        case text
        case integer(ClosedRange<Int>)
        case decimal(ClosedRange<Double>)
        /// true or false, given after the flag as after the environment name.
        case boolean
        /// On when the flag is named (it takes no value); true or false in the environment.
        case flag
    }

    /// Where the default comes from: the field of `Settings` that holds it, or words where the
    /// value depends on the machine or on other settings.
    public enum Default: Sendable {
        case none
        case field(@Sendable (Settings) -> String)
        case described(String)
    }

    public let name: String
    /// imgproxy's name for this setting, without IMGPROXY_: mostly `name`, but imgproxy's WORKERS
    /// are thumbd's MAX_CONCURRENT_RENDERS (thumbd's WORKERS are its FastCGI threads).
    public let imgproxyName: String?
    public let value: Value
    public let `default`: Default
    /// One line for `--help`.
    public let help: String
    /// What the docs say instead of `help`, where a setting needs more than a line.
    public let details: String?
    /// A value no message may quote (a key, a salt, a signature accepted unchecked, a header an
    /// origin takes as a password): the journal is read by more people than the settings file.
    public let secret: Bool
    /// SIGHUP puts a new value in place; a change to any other setting is named in the reload's
    /// log line and waits for a restart.
    public let reloads: Bool

    init(_ name: String, imgproxy: Bool = false, imgproxyName: String? = nil, secret: Bool = false, reloads: Bool = false,
         _ value: Value, _ default: Default, _ help: String, details: String? = nil) {
        self.name = name
        self.imgproxyName = imgproxyName ?? (imgproxy ? name : nil)
        self.secret = secret
        self.reloads = reloads
        self.value = value
        self.default = `default`
        self.help = help
        self.details = details
    }

    public var imgproxy: Bool { imgproxyName != nil }

    /// THUMBD_ first; then IMGPROXY_ where imgproxy has a setting that means the same, so an
    /// imgproxy user's environment works unchanged.
    public var environmentNames: [String] {
        ["THUMBD_\(name)"] + (imgproxyName.map { ["IMGPROXY_\($0)"] } ?? [])
    }

    /// `MAX_SRC_FILE_SIZE` → `max-src-file-size`, the spelling ArgumentParser gave these flags.
    public var flag: String { name.lowercased().replacingOccurrences(of: "_", with: "-") }

    /// `MAX_SRC_FILE_SIZE` → `max_src_file_size`, the key in a settings file.
    public var fileKey: String { name.lowercased() }

    /// The default as the docs and `--help` show it; nil when there is none.
    public var defaultText: String? {
        switch `default` {
        case .none: nil
        case .field(let read): read(Settings())
        case .described(let words): words
        }
    }

    /// What the docs and `--help` say of a setting beside its help: `secret`, `SIGHUP applies it`.
    public var marks: [String] {
        (secret ? ["secret"] : []) + (reloads ? ["SIGHUP applies it"] : [])
    }

    /// The range as the docs and `--help` show it, for numbers.
    public var rangeText: String? {
        switch value {
        case .integer(let range): "\(range.lowerBound) to \(range.upperBound)"
        case .decimal(let range): "\(range.lowerBound.shortText) to \(range.upperBound.shortText)"
        case .text, .boolean, .flag: nil
        }
    }
}

extension Double {
    /// `5` for 5.0, `0.1` for 0.1: defaults and ranges as a person writes them.
    var shortText: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
