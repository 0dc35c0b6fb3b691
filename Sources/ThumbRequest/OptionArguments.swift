import ThumbRuntime

/// Typed reads of one option's arguments. Every failure is a 400 that names the option as the URL
/// spelt it (`w` or `width`) and the argument. An absent or empty argument reads as nil, so the
/// caller keeps the value it had: imgproxy's "empty arguments keep the current value".
struct OptionArguments {
    let name: String
    let values: [String]

    init(_ option: URLOption) {
        name = option.name
        values = option.arguments
    }

    var count: Int { values.count }

    /// The argument at `index`; nil when it is absent or empty.
    subscript(index: Int) -> String? {
        index < values.count && !values[index].isEmpty ? values[index] : nil
    }

    func expectCount(_ range: ClosedRange<Int>) throws(RequestFailure) {
        guard !range.contains(values.count) else { return }
        let what = range.lowerBound == range.upperBound
            ? "\(range.lowerBound) argument\(range.lowerBound == 1 ? "" : "s")"
            : "\(range.lowerBound) to \(range.upperBound) arguments"
        throw .invalidURL("\(name) takes \(what), got \(values.count)")
    }

    func invalid(_ index: Int, _ what: String = "argument", expected: String) -> RequestFailure {
        .invalidURL("invalid \(name) \(what) \(values[index].debugDescription): expected \(expected)")
    }

    /// The argument at `index`, which may be empty only where the option keeps its value; where
    /// imgproxy reads it as a number, a colour or a name it requires one (`required`), and an
    /// empty argument is refused as any bad value is.
    private func text(_ index: Int, required: Bool, what: String, expected: String) throws(RequestFailure) -> String? {
        if let text = self[index] { return text }
        if required { throw invalid(index, what, expected: expected) }
        return nil
    }

    func integer(_ index: Int, in range: ClosedRange<Int>, what: String = "argument",
                 required: Bool = false) throws(RequestFailure) -> Int? {
        let expected = "a whole number from \(range.lowerBound) to \(range.upperBound)"
        guard let text = try text(index, required: required, what: what, expected: expected) else { return nil }
        guard let value = Int(text), range.contains(value) else { throw invalid(index, what, expected: expected) }
        return value
    }

    func decimal(_ index: Int, _ bounds: DecimalBounds, what: String = "argument",
                 required: Bool = false) throws(RequestFailure) -> Double? {
        guard let text = try text(index, required: required, what: what, expected: bounds.expectation) else {
            return nil
        }
        guard let value = Double(text), bounds.contains(value) else {
            throw invalid(index, what, expected: bounds.expectation)
        }
        return value
    }

    /// imgproxy's booleans: Go's `strconv.ParseBool` true spellings are true, and anything else,
    /// an empty argument included, false (imgproxy logs a warning and goes on). nil for an absent
    /// argument, and for an empty one where the option keeps its value (`emptyKeeps`).
    func bool(_ index: Int, emptyKeeps: Bool = true) -> Bool? {
        guard index < values.count, !(emptyKeeps && values[index].isEmpty) else { return nil }
        return ["1", "t", "T", "true", "TRUE", "True"].contains(values[index])
    }

    /// `RRGGBB` or `RGB`, without `#`.
    func hexColor(_ index: Int, what: String = "argument") throws(RequestFailure) -> RGBColor? {
        guard let text = self[index] else { return nil }
        guard let color = RGBColor(hex: text) else { throw invalid(index, what, expected: "a hex colour, RRGGBB") }
        return color
    }

    /// `type[:x[:y]]` from `start` on: a compass type with offsets in pixels (absent or empty
    /// ones keep the current compass offsets, as imgproxy keeps them), `sm` without offsets, or
    /// `fp:x:y` with both shares in 0...1. The type is required, as imgproxy requires it.
    func gravity(from start: Int, allowed: [Gravity.Anchor], current: Gravity, what: String) throws(RequestFailure)
        -> Gravity {
        let expected = "one of " + allowed.map(\.rawValue).joined(separator: ", ")
        guard let text = try text(start, required: true, what: what, expected: expected),
              let anchor = Gravity.Anchor(rawValue: text), allowed.contains(anchor) else {
            throw invalid(start, what, expected: expected)
        }
        let given = values.count - start
        switch anchor {
        case .smart:
            guard given == 1 else { throw .invalidURL("\(name): gravity sm takes no offsets") }
            return Gravity(anchor: .smart)
        case .focusPoint:
            guard given == 3, let x = try decimal(start + 1, .from(0, to: 1), what: "focus point"),
                  let y = try decimal(start + 2, .from(0, to: 1), what: "focus point") else {
                throw .invalidURL("\(name): gravity fp takes x and y, each from 0 to 1")
            }
            return Gravity(anchor: .focusPoint, offsetX: x, offsetY: y)
        default:
            guard given <= 3 else { throw .invalidURL("\(name): gravity takes at most 2 offsets, got \(given - 1)") }
            // Offsets not given keep the current ones, a focus point's too, as imgproxy keeps them.
            let carried = current
            let limit = Double(ProcessingOptions.maxDimension)
            return Gravity(anchor: anchor,
                           offsetX: try decimal(start + 1, .from(-limit, to: limit), what: "offset") ?? carried.offsetX,
                           offsetY: try decimal(start + 2, .from(-limit, to: limit), what: "offset") ?? carried.offsetY)
        }
    }
}

/// The finite numbers an argument may take, and how a message says so.
struct DecimalBounds {
    var lower: Double
    var includesLower: Bool
    var upper: Double

    static func from(_ lower: Double, to upper: Double) -> Self {
        Self(lower: lower, includesLower: true, upper: upper)
    }

    static func above(_ lower: Double, to upper: Double) -> Self {
        Self(lower: lower, includesLower: false, upper: upper)
    }

    func contains(_ value: Double) -> Bool {
        value.isFinite && (includesLower ? value >= lower : value > lower) && value <= upper
    }

    var expectation: String {
        includesLower
            ? "a number from \(Self.text(lower)) to \(Self.text(upper))"
            : "a number above \(Self.text(lower)) up to \(Self.text(upper))"
    }

    private static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

extension Gravity.Anchor {
    /// The nine compass points, where offsets are pixels.
    var isCompass: Bool { self != .smart && self != .focusPoint }
}
