/// A settings type's declared settings and the rules among them, lifted into the type that holds
/// it: the executable joins the stages' tables into one with `+`.
public struct SettingTable<Root>: Sendable {
    /// A stage's `validate()`, with the names of the settings its rules compare: it is asked only
    /// when each of them read well, since a rule over a half-read value would only add noise to
    /// the problem found.
    public struct Validation: Sendable {
        public let names: Set<String>
        public let check: @Sendable (Root) -> [SettingProblem]
    }

    public private(set) var settings: [Setting<Root>]
    public private(set) var validations: [Validation]

    public init(settings: [Setting<Root>], validations: [Validation] = []) {
        self.settings = settings
        self.validations = validations
    }

    public static func + (left: Self, right: Self) -> Self {
        Self(settings: left.settings + right.settings, validations: left.validations + right.validations)
    }
}

/// A settings type that declares its own settings (`settings`) and the rules among them
/// (`validate()`), as imgproxy's packages give their config a `Validate`.
public protocol DeclaresSettings: SendableMetatype {
    static var settings: [Setting<Self>] { get }
    /// The rules among this type's own settings; empty when they hold.
    func validate() -> [SettingProblem]
    /// The settings `validate()` compares, by name: all of this type's unless it says otherwise.
    static var validated: Set<String> { get }
}

extension DeclaresSettings {
    public func validate() -> [SettingProblem] { [] }

    public static var validated: Set<String> { Set(settings.map(\.name)) }

    /// This type's table, as part of `Outer`, which holds it at `path`.
    public static func table<Outer>(at path: SettingPath<Outer, Self>) -> SettingTable<Outer> {
        SettingTable(settings: settings.map { $0.lifted(path) },
                     validations: [.init(names: validated, check: { $0[keyPath: path].validate() })])
    }
}
