/// A key path a setting writes and reads: Sendable, so that a declaration can be shared.
public typealias SettingPath<Root, Value> = WritableKeyPath<Root, Value> & Sendable

/// One setting, declared by the stage whose settings type it configures: its name (THUMBD_<NAME>,
/// and the IMGPROXY_ name of imgproxy's setting that means the same, if there is one), the value it
/// takes with its range, where it goes in `Root`, its default and its help. Everything else about
/// a setting (flag, environment names, file key, the check at start, `--help`, the docs' table, the
/// man page) is derived from this, so each is written once.
public struct Setting<Root>: Sendable {
    public let name: String
    /// imgproxy's name for this setting, without IMGPROXY_: mostly `name`, but imgproxy's WORKERS
    /// are thumbd's MAX_CONCURRENT_RENDERS (thumbd's WORKERS are its FastCGI threads).
    public let imgproxyName: String?
    /// A value no message may quote (a key, a salt, a signature accepted unchecked, a header an
    /// origin takes as a password): the journal is read by more people than the settings file.
    public let secret: Bool
    /// SIGHUP puts a new value in place; a change to any other setting is named in the reload's
    /// log line and waits for a restart.
    public let reloads: Bool
    /// The setting this is a deprecated name of: it is read first, so the current name wins.
    public let deprecatedFor: String?
    /// Settings that give the same thing another way (`fallback image`): at most one of a group may
    /// be given.
    public let exclusive: String?
    public let kind: SettingKind
    public let `default`: SettingDefault
    /// One line for `--help`.
    public let help: String
    /// What the docs say instead of `help`, where a setting needs more than a line.
    public let details: String?
    private let binding: SettingBinding<Root>

    public init(_ name: String, imgproxy: Bool = false, imgproxyName: String? = nil, secret: Bool = false,
                reloads: Bool = false, deprecatedFor: String? = nil, exclusive: String? = nil,
                _ binding: SettingBinding<Root>, default: SettingDefault = .field, help: String,
                details: String? = nil) {
        self.name = name
        self.imgproxyName = imgproxyName ?? (imgproxy ? name : nil)
        self.secret = secret
        self.reloads = reloads
        self.deprecatedFor = deprecatedFor
        self.exclusive = exclusive
        self.kind = binding.kind
        self.default = `default`
        self.help = help
        self.details = details
        self.binding = binding
    }

    /// Reads `text` into `root`; throws `InvalidSetting` (or another error) naming what was expected.
    public func apply(_ text: String, to root: inout Root) throws {
        try binding.apply(text, &root)
    }

    /// The value `root` holds for this setting, as its flag would give it.
    public func value(in root: Root) -> String {
        binding.show(root)
    }

    /// The same setting for a type that holds `Root` at `path`: how the executable composes the
    /// stages' tables into one.
    public func lifted<Outer>(_ path: SettingPath<Outer, Root>) -> Setting<Outer> {
        Setting<Outer>(copying: self, binding: binding.lifted(path))
    }

    private init<Inner>(copying setting: Setting<Inner>, binding: SettingBinding<Root>) {
        self.init(setting.name, imgproxyName: setting.imgproxyName, secret: setting.secret, reloads: setting.reloads,
                  deprecatedFor: setting.deprecatedFor, exclusive: setting.exclusive, binding,
                  default: setting.default, help: setting.help, details: setting.details)
    }
}

extension Setting {
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

    /// What the docs and `--help` say of a setting beside its help: `secret`, `SIGHUP applies it`.
    public var marks: [String] {
        (secret ? ["secret"] : []) + (reloads ? ["SIGHUP applies it"] : [])
    }

    /// The range as the docs and `--help` show it, for numbers.
    public var rangeText: String? { kind.rangeText }

    /// The default as the docs and `--help` show it, `defaults` being `Root` as made with `init()`;
    /// nil when there is none.
    public func defaultText(in defaults: Root) -> String? {
        switch `default` {
        case .field: value(in: defaults)
        case .none: nil
        case .described(let words): words
        }
    }

    /// The help with its environment names, default and range: `Worker threads. [THUMBD_WORKERS,
    /// IMGPROXY_WORKERS; default 2 x cores; 1 to 1024]`.
    public func helpLine(defaults: Root) -> String {
        var facts = [environmentNames.joined(separator: ", ")]
        if let text = defaultText(in: defaults) { facts.append("default \(text)") }
        if let range = rangeText { facts.append(range) }
        facts += marks
        return "\(help) [\(facts.joined(separator: "; "))]"
    }
}
