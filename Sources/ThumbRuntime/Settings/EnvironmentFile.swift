/// The variables of an environment file as systemd's EnvironmentFile= reads the simple ones:
/// `NAME=value` lines, blank lines and `#` comments skipped, an optional `export `, and a value
/// in single or double quotes taken without them.
public enum EnvironmentFile {
    public struct Malformed: Error, CustomStringConvertible {
        let line: Int
        public var description: String { "line \(line) is not NAME=value" }
    }

    public static func variables(_ text: String) throws(Malformed) -> [String: String] {
        var variables: [String: String] = [:]
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = raw.trimmingPrefix(while: \.isWhitespace)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("export ") { line = line.dropFirst("export ".count) }
            guard let equals = line.firstIndex(of: "="), !line[..<equals].isEmpty,
                  line[..<equals].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw Malformed(line: number + 1)
            }
            var value = line[line.index(after: equals)...]
            while value.last?.isWhitespace == true { value = value.dropLast() }
            if value.count >= 2, let quote = value.first, quote == "\"" || quote == "'", value.last == quote {
                value = value.dropFirst().dropLast()
            }
            variables[String(line[..<equals])] = String(value)
        }
        return variables
    }
}
