import Configuration
import Foundation
import ThumbRuntime

/// Where settings are read from, the first that has one winning: flags, THUMBD_ environment
/// variables, IMGPROXY_ ones, then the settings file (--config, else THUMBD_CONFIG), through
/// swift-configuration's providers. `load()` reads every source anew, the file included, so a
/// reload is another call that gives another validated `Settings`, or every problem.
///
/// The providers are asked one by one here rather than through a `ConfigReader`: a problem names
/// where its value came from (`--workers`, `IMGPROXY_WORKERS`, `workers in /etc/thumbd.json`),
/// which a reader's answer does not tell, and values are checked by the declarations' own rules
/// (ranges, imgproxy's boolean spellings) with every problem listed, where a reader converts
/// types by its own and stops at the first.
struct SettingSources: Sendable {
    /// The settings' flags, by setting name (`MAX_SRC_FILE_SIZE`).
    var flags: [String: String]
    var environment: [String: String]

    init(flags: [String: String] = [:], environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.flags = flags
        self.environment = environment
    }

    /// The settings file, if one is named.
    var filePath: String? {
        flags[Self.config.name] ?? Self.config.environmentNames.lazy.compactMap { environment[$0] }.first
    }

    private static let config = Settings.setting("CONFIG")

    func load() -> Result<Settings, Settings.Problems> {
        var fileProblems: [String] = []
        let lookup = lookup { path, error in
            let origin = flags[Self.config.name] != nil ? "--\(Self.config.flag)" : Self.config.environmentNames[0]
            fileProblems.append("\(origin)=\(path.debugDescription): \(error)")
        }
        let loaded = Settings.load(lookup, environment: environment).map { settings in
            var settings = settings
            settings.flags = flags
            return settings
        }
        let nameProblems = EnvironmentNames.problems(environment) + fileProblems
        guard !nameProblems.isEmpty else { return loaded }
        switch loaded {
        case .success: return .failure(Settings.Problems(messages: nameProblems))
        case .failure(let problems): return .failure(Settings.Problems(messages: nameProblems + problems.messages))
        }
    }

    /// A setting's value from the first source that has it, and where it came from; a settings
    /// file that cannot be read is told to `fileProblem` and left out.
    func lookup(fileProblem: (String, any Error) -> Void = { _, _ in }) -> Settings.Lookup {
        var layers = [flagLayer] + Self.environmentLayers(environment)
        if let path = filePath, !path.isEmpty {
            do {
                layers += try Self.fileLayers(path)
            } catch {
                fileProblem(path, error)
            }
        }
        return { setting in layers.lazy.compactMap { $0.value(setting) }.first }
    }

    /// One source: a provider's snapshot, the key a setting has in it (nil: not there), and how a
    /// problem names it.
    private struct Layer {
        let snapshot: any ConfigSnapshot
        let key: (Setting<Settings>) -> AbsoluteConfigKey?
        let origin: (Setting<Settings>, LookupResult) -> String

        func value(_ setting: Setting<Settings>) -> (value: String, origin: String)? {
            guard let key = key(setting) else { return nil }
            for type in [ConfigType.string, .int, .double, .bool, .stringArray] {
                guard let result = try? snapshot.value(forKey: key, type: type) else { continue }
                guard let content = result.value?.content else { return nil }
                return (Self.text(content), origin(setting, result))
            }
            return (value: "", origin: "\(key) (a string, number, true/false or list of strings)")
        }

        /// A file's number, boolean or list as the environment would spell it.
        private static func text(_ content: ConfigContent) -> String {
            switch content {
            case .string(let text): text
            case .int(let number): String(number)
            case .double(let number): number.shortText
            case .bool(let flag): String(flag)
            case .stringArray(let items): items.joined(separator: ",")
            default: ""
            }
        }
    }

    private var flagLayer: Layer {
        let values = Dictionary(uniqueKeysWithValues: flags.map { name, value in
            (AbsoluteConfigKey([Settings.setting(name).flag]), ConfigValue(.string(value), isSecret: false))
        })
        return Layer(snapshot: InMemoryProvider(name: "flags", values: values).snapshot(),
                     key: { AbsoluteConfigKey([$0.flag]) }, origin: { setting, _ in "--\(setting.flag)" })
    }

    /// THUMBD_ names, then IMGPROXY_ ones. THUMBD_MAX_SRC_FILE_SIZE is the key
    /// `thumbd.max_src_file_size` as the provider spells it. `file` names an environment file the
    /// variables came from.
    private static func environmentLayers(_ variables: [String: String], file: String? = nil) -> [Layer] {
        let snapshot = EnvironmentVariablesProvider(environmentVariables: variables).snapshot()
        let origin = { (_: Setting<Settings>, result: LookupResult) in
            file.map { "\(result.encodedKey) in \($0)" } ?? result.encodedKey
        }
        return [
            Layer(snapshot: snapshot, key: { AbsoluteConfigKey(["thumbd", $0.fileKey]) }, origin: origin),
            Layer(snapshot: snapshot, key: { $0.imgproxyName.map { AbsoluteConfigKey(["imgproxy", $0.lowercased()]) } }, origin: origin),
        ]
    }

    /// A `.json` file of lowercase keys, or else an environment file (`THUMBD_KEY=...` lines, as
    /// systemd's EnvironmentFile reads them), which thumbd reads itself so that SIGHUP can read
    /// it again. Read here, synchronously: the FileProvider that would read it is async, and
    /// thumbd's commands are not. A name that is no setting is a problem, not a silent default.
    private static func fileLayers(_ path: String) throws -> [Layer] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FileError(description: "cannot read the settings file")
        }
        guard path.hasSuffix(".json") else {
            let variables = try EnvironmentFile.variables(String(decoding: data, as: UTF8.self))
            let problems = EnvironmentNames.problems(variables, inFile: true)
                + variables.keys.filter { !$0.hasPrefix("THUMBD_") && !$0.hasPrefix("IMGPROXY_") }.sorted()
                    .map { "\($0): no such setting" }
            guard problems.isEmpty else { throw FileError(description: problems.joined(separator: "; ")) }
            return environmentLayers(variables, file: path)
        }
        let bytes = [UInt8](data)
        let snapshot = try JSONSnapshot(data: bytes.span.bytes, providerName: path, parsingOptions: .default)
        // A misspelt key would otherwise leave its setting at the default without a word.
        let known = Set(Settings.declared.map(\.fileKey))
        let keys = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?.keys.sorted() ?? []
        let unknown = keys.filter { !known.contains($0) }
        guard unknown.isEmpty else {
            throw FileError(description: "no such setting: \(unknown.joined(separator: ", "))")
        }
        return [Layer(snapshot: snapshot, key: { AbsoluteConfigKey([$0.fileKey]) },
                      origin: { setting, _ in "\(setting.fileKey) in \(path)" })]
    }

    private struct FileError: Error, CustomStringConvertible {
        let description: String
    }
}
