/// How a setting's text becomes a field of its settings type and back: the kind of value, the
/// reading (with its checks) and the writing back that `--help`, the docs and the tests use.
/// The field's own default is what `show` gives for the type made with `init()`.
public struct SettingBinding<Root>: Sendable {
    let kind: SettingKind
    let apply: @Sendable (String, inout Root) throws -> Void
    let show: @Sendable (Root) -> String

    /// A reading of its own, where a setting writes more than one field (a timeout that bounds
    /// another) or reads what another setting wrote first.
    public init(kind: SettingKind, apply: @escaping @Sendable (String, inout Root) throws -> Void,
                show: @escaping @Sendable (Root) -> String) {
        self.kind = kind
        self.apply = apply
        self.show = show
    }

    func lifted<Outer>(_ path: SettingPath<Outer, Root>) -> SettingBinding<Outer> {
        let apply = apply, show = show
        return SettingBinding<Outer>(kind: kind, apply: { text, outer in try apply(text, &outer[keyPath: path]) },
                                     show: { show($0[keyPath: path]) })
    }

    /// `read` turns the checked text into the field's value, `show` the value back into text.
    public static func field<Value>(_ path: SettingPath<Root, Value>, kind: SettingKind = .text,
                                    read: @escaping @Sendable (String) throws -> Value,
                                    show: @escaping @Sendable (Value) -> String) -> Self {
        Self(kind: kind, apply: { text, root in root[keyPath: path] = try read(text) },
             show: { show($0[keyPath: path]) })
    }

    /// The text as given.
    public static func text(_ path: SettingPath<Root, String>) -> Self {
        field(path, read: { $0 }, show: { $0 })
    }

    /// An optional field: empty text leaves it nil (off), and nil shows as empty.
    public static func optional<Value>(_ path: SettingPath<Root, Value?>,
                                       read: @escaping @Sendable (String) throws -> Value,
                                       show: @escaping @Sendable (Value) -> String) -> Self {
        field(path, read: { $0.isEmpty ? nil : try read($0) }, show: { $0.map(show) ?? "" })
    }

    /// An optional text, as given; empty leaves it nil.
    public static func optionalText(_ path: SettingPath<Root, String?>) -> Self {
        optional(path, read: { $0 }, show: { $0 })
    }

    /// Comma-separated items (`SettingText.list`).
    public static func list(_ path: SettingPath<Root, [String]>) -> Self {
        field(path, read: SettingText.list, show: { $0.joined(separator: ",") })
    }

    /// One of a string enumeration's raw values; `expected` lists them for the message.
    public static func choice<Value: RawRepresentable<String> & SendableMetatype>(_ path: SettingPath<Root, Value>,
                                                               expected: String) -> Self {
        field(path, read: { text in
            guard let value = Value(rawValue: text) else { throw InvalidSetting(expected: "expected \(expected)") }
            return value
        }, show: \.rawValue)
    }

    /// A whole number within `range`; `why` says what the bounds protect.
    public static func integer<Value: BinaryInteger & Sendable>(_ path: SettingPath<Root, Value>,
                                                                _ range: ClosedRange<Int>, why: String? = nil) -> Self {
        integer(path, range, why: why, read: { Value($0) }, show: { "\($0)" })
    }

    /// A whole number within `range`, which `read` turns into the field's value (0 meaning no
    /// limit, say).
    public static func integer<Value>(_ path: SettingPath<Root, Value>, _ range: ClosedRange<Int>, why: String? = nil,
                                      read: @escaping @Sendable (Int) throws -> Value,
                                      show: @escaping @Sendable (Value) -> String) -> Self {
        field(path, kind: .integer(range), read: { try read(try SettingText.integer($0, in: range, why: why)) },
              show: show)
    }

    /// A number within `range`.
    public static func decimal(_ path: SettingPath<Root, Double>, _ range: ClosedRange<Double>) -> Self {
        decimal(path, range, read: { $0 }, show: \.shortText)
    }

    /// A number within `range` in the unit people write (seconds, megapixels), which the field
    /// holds `unit` times over (milliseconds, pixels).
    public static func decimal(_ path: SettingPath<Root, Int>, _ range: ClosedRange<Double>, unit: Int) -> Self {
        decimal(path, range, read: { Int($0 * Double(unit)) }, show: { (Double($0) / Double(unit)).shortText })
    }

    public static func decimal<Value>(_ path: SettingPath<Root, Value>, _ range: ClosedRange<Double>,
                                      read: @escaping @Sendable (Double) throws -> Value,
                                      show: @escaping @Sendable (Value) -> String) -> Self {
        field(path, kind: .decimal(range), read: { try read(try SettingText.decimal($0, in: range)) }, show: show)
    }

    /// true or false, given after the flag as after the environment name.
    public static func boolean(_ path: SettingPath<Root, Bool>) -> Self {
        field(path, kind: .boolean, read: SettingText.bool, show: { "\($0)" })
    }

    /// On when the flag is named; true or false in the environment.
    public static func flag(_ path: SettingPath<Root, Bool>) -> Self {
        field(path, kind: .flag, read: SettingText.bool, show: { "\($0)" })
    }
}
