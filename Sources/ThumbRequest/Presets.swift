import Foundation

/// imgproxy's presets: named lists of options. Written as in `IMGPROXY_PRESETS`:
/// `name=option/option/...`, several separated by commas. Blank entries and entries that start
/// with `#` are skipped; a name defined twice keeps its last definition, as in imgproxy.
/// This checks the syntax only; `OptionParser.presetProblems()` checks what the options say.
public struct Presets: Sendable, Hashable {
    public struct Invalid: Error, Sendable {
        /// One line per malformed entry, each naming it.
        public let messages: [String]
    }

    private let byName: [String: [URLOption]]

    public init(_ byName: [String: [URLOption]] = [:]) {
        self.byName = byName
    }

    public init(parsing text: String) throws(Invalid) {
        var byName: [String: [URLOption]] = [:]
        var problems: [String] = []
        for entry in text.split(separator: ",") {
            let entry = entry.trimmingCharacters(in: .whitespaces)
            guard !entry.isEmpty, !entry.hasPrefix("#") else { continue }
            switch Self.definition(entry) {
            case .success(let (name, options)): byName[name] = options
            case .failure(let problem): problems.append(problem.message)
            }
        }
        guard problems.isEmpty else { throw Invalid(messages: problems) }
        self.byName = byName
    }

    public subscript(name: String) -> [URLOption]? { byName[name] }

    /// The names, sorted.
    public var names: [String] { byName.keys.sorted() }

    public var isEmpty: Bool { byName.isEmpty }

    private struct Problem: Error {
        let message: String
    }

    private static func definition(_ entry: String) -> Result<(String, [URLOption]), Problem> {
        let parts = entry.split(separator: "=", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            return .failure(Problem(message: "\(entry.debugDescription) is not name=option/option/..."))
        }
        let name = parts[0].trimmingCharacters(in: .whitespaces)
        let value = parts[1].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return .failure(Problem(message: "\(entry.debugDescription) has no name")) }
        guard !value.isEmpty else {
            return .failure(Problem(message: "preset \(name.debugDescription) has no options"))
        }
        var options: [URLOption] = []
        for segment in value.split(separator: "/", omittingEmptySubsequences: false) {
            guard let option = URLOption(segment: segment) else {
                return .failure(Problem(message: "preset \(name.debugDescription): "
                    + "\(String(segment).debugDescription) is not an option (name:arguments)"))
            }
            options.append(option)
        }
        return .success((name, options))
    }
}
