import Foundation

/// The THUMBD_ and IMGPROXY_ names an environment (or a settings file of such lines) sets, checked
/// at start: a misspelt name would otherwise leave its setting at the default without a word, and
/// an imgproxy setting thumbd does not have would seem to work.
enum EnvironmentNames {
    /// Names the project's scripts read (deploy/run, deploy/test, bench/): they pass through
    /// thumbd's environment and mean nothing to it.
    static let scripts: Set<String> = [
        "THUMBD_BINARY", "THUMBD_HTTP_PORT", "THUMBD_RUN_DIR", "THUMBD_PHOTOS", "THUMBD_TEST_PHOTOS", "THUMBD_PACKAGES",
        "THUMBD_CLUSTER_HOSTS", "THUMBD_CLUSTER_NAME", "THUMBD_CLUSTER_NET", "THUMBD_DEBIAN_MIRROR",
        "THUMBD_DEBIAN_ROOT", "THUMBD_MACHINE_BOOT_TIMEOUT", "THUMBD_MACHINE_STOP_TIMEOUT", "THUMBD_BENCH_DIR",
        "THUMBD_BENCH_PHOTOS", "THUMBD_TEST_MOTO_PYTHON",
    ]

    /// One problem per name that is no setting, or an imgproxy setting thumbd does not honour
    /// with the value given. In a settings file, the scripts' names are no settings either.
    static func problems(_ variables: [String: String], inFile: Bool = false) -> [String] {
        let settings = Set(Settings.declared.flatMap(\.environmentNames))
        return variables.keys.sorted().compactMap { name in
            guard !settings.contains(name) else { return nil }
            if name.hasPrefix("THUMBD_") {
                guard inFile || !scripts.contains(name) else { return nil }
                return "\(name): no such setting\(suggestion(for: name))"
            }
            guard name.hasPrefix("IMGPROXY_") else { return nil }
            switch ImgproxySettings.verdict(String(name.dropFirst("IMGPROXY_".count))) {
            case .sameAsThumbd(let value, let otherwise)?:
                let given = variables[name] ?? ""
                guard !sameValue(given, value) else { return nil }
                return "\(name)=\(given): \(otherwise)"
            case .refused(let why)?:
                return "\(name): \(why)"
            case nil:
                return "\(name): no such imgproxy setting\(suggestion(for: name))"
            }
        }
    }

    /// imgproxy reads booleans as Go's strconv.ParseBool: 1, t, T, TRUE, true, True (and so for false).
    private static func sameValue(_ given: String, _ expected: String) -> Bool {
        let trimmed = given.trimmingCharacters(in: .whitespaces)
        switch expected {
        case "true": return ["1", "t", "T", "TRUE", "true", "True"].contains(trimmed)
        case "false": return ["0", "f", "F", "FALSE", "false", "False"].contains(trimmed)
        default: return trimmed == expected
        }
    }

    /// ` (did you mean THUMBD_CACHE_MAX_BYTES?)` for the nearest known name with the same prefix,
    /// when it is a few edits away.
    private static func suggestion(for name: String) -> String {
        let prefix = name.hasPrefix("THUMBD_") ? "THUMBD_" : "IMGPROXY_"
        let known = Settings.declared.flatMap(\.environmentNames).filter { $0.hasPrefix(prefix) }
            + (prefix == "THUMBD_" ? [] : ImgproxySettings.documented.map { prefix + $0 })
        let nearest = known.map { (name: $0, distance: editDistance(name, $0)) }.min { $0.distance < $1.distance }
        guard let nearest, nearest.distance <= max(2, name.count / 6) else { return "" }
        return " (did you mean \(nearest.name)?)"
    }

    /// Levenshtein distance: the insertions, deletions and substitutions that turn one into the other.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
