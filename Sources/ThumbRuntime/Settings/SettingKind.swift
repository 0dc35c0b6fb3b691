/// The value a setting takes, as its flag, environment variable and settings-file entry spell it;
/// numbers carry the range checked at start.
public enum SettingKind: Sendable {
    case text
    case integer(ClosedRange<Int>)
    case decimal(ClosedRange<Double>)
    /// true or false, given after the flag as after the environment name.
    case boolean
    /// On when the flag is named (it takes no value); true or false in the environment.
    case flag

    /// The range as the docs and `--help` show it, for numbers.
    public var rangeText: String? {
        switch self {
        case .integer(let range): "\(range.lowerBound) to \(range.upperBound)"
        case .decimal(let range): "\(range.lowerBound.shortText) to \(range.upperBound.shortText)"
        case .text, .boolean, .flag: nil
        }
    }
}

extension Double {
    /// `5` for 5.0, `0.1` for 0.1: defaults and ranges as a person writes them.
    public var shortText: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
