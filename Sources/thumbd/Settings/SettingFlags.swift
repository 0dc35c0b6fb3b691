import ArgumentParser
import Foundation
import ThumbRuntime

/// The settings' flags, derived from the declarations: `--max-src-file-size 1048576`,
/// `--listen=unix:/run/t.sock`, and switches such as `--insecure` that take no value.
/// ArgumentParser keeps the subcommands and their own options, and cannot declare options at run
/// time: the settings' flags a subcommand takes (`commands`) are taken out of the arguments before
/// it parses them (`Thumbd.main`), so a setting has its flag without a property written for it, and
/// the command's `--help` lists them from the same declarations.
public enum SettingFlags {
    /// The settings' flags given to this process, by setting name: `Thumbd.main` takes them out of
    /// the arguments and runs the command with them bound here.
    @TaskLocal public static var given: [String: String] = [:]

    /// Which settings a subcommand takes as flags.
    enum Taken {
        case every
        case only([String])
    }

    /// The subcommands that take settings as flags, by the words that name them; any other takes
    /// none. Those that run or sign as thumbd does take every one. The cache commands take what
    /// names a cache (`purge --key` is a thumbnail's key, not KEY), and `warm` what signs (its
    /// `--timeout` is a request's seconds, not TIMEOUT): each reads every other setting from the
    /// environment and the settings file.
    static let commands: [(path: String, taken: Taken)] = [
        ("serve", .every), ("sign", .every), ("render", .every),
        ("cache stats", cache), ("cache purge", cache), ("cache verify", cache),
        ("warm", .only(["CONFIG", "KEY", "SALT", "SIGNATURE_SIZE"])),
    ]

    private static let cache = Taken.only(["CONFIG", "CACHE_ROOT", "CACHE_INDEX"])

    /// The settings `command` (`cache stats`) takes as flags.
    static func settings(for command: String) -> [Setting<Settings>] {
        switch taken(by: command) {
        case .every: Settings.declared
        case .only(let names): names.map(Settings.setting)
        case nil: []
        }
    }

    private static func taken(by command: String) -> Taken? {
        commands.first { $0.path == command }?.taken
    }

    /// The listed subcommand these arguments run: the longest run of their first words that names
    /// one (`cache stats`, `warm` before its file), or serve, the default, when they start with a
    /// flag; nil for any other.
    static func command(of arguments: [String]) -> String? {
        let words = arguments.prefix { !$0.hasPrefix("-") }
        guard !words.isEmpty else { return "serve" }
        return (1...words.count).reversed().map { words.prefix($0).joined(separator: " ") }
            .first { path in commands.contains { $0.path == path } }
    }

    /// The settings' flags the command these arguments run takes, with their values, by setting
    /// name, and every other argument in order for ArgumentParser.
    static func split(_ arguments: [String]) throws -> (settings: [String: String], rest: [String]) {
        let byFlag = Dictionary(uniqueKeysWithValues: settings(for: command(of: arguments) ?? "").map { ($0.flag, $0) })
        var settings: [String: String] = [:]
        var rest: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                rest += arguments[(index - 1)...]
                break
            }
            let parts = argument.dropFirst(2).split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard argument.hasPrefix("--"), let setting = byFlag[String(parts[0])] else {
                rest.append(argument)
                continue
            }
            let attached = parts.count == 2 ? String(parts[1]) : nil
            if case .flag = setting.kind {
                guard attached == nil else { throw ValidationError("--\(setting.flag) takes no value") }
                settings[setting.name] = "true"
            } else if let attached {
                settings[setting.name] = attached
            } else {
                guard index < arguments.count, !arguments[index].hasPrefix("-") else {
                    throw ValidationError("Missing value for '--\(setting.flag) <value>'")
                }
                settings[setting.name] = arguments[index]
                index += 1
            }
        }
        return (settings, rest)
    }

    /// Which commands take which settings as flags, in a sentence for docs/configuration.md and the
    /// man page, each command and flag written by `code`.
    static func summary(code: (String) -> String) -> String {
        var groups: [(paths: [String], names: [String]?)] = []
        for (path, taken) in commands {
            let names: [String]? = if case .only(let names) = taken { names } else { nil }
            if let last = groups.last, last.names == names {
                groups[groups.count - 1].paths.append(path)
            } else {
                groups.append(([path], names))
            }
        }
        let parts = groups.map { group in
            let commands = listed(group.paths.map { code("thumbd " + $0) })
            guard let names = group.names else { return "every setting is also a flag of \(commands)" }
            let flags = listed(names.map { code("--" + Settings.setting($0).flag) })
            return "\(commands) take\(group.paths.count == 1 ? "s" : "") \(flags)"
        }
        let sentence = parts.joined(separator: "; ")
        return sentence.prefix(1).uppercased() + sentence.dropFirst() + "; any other command takes none."
    }

    /// `a, b and c`.
    private static func listed(_ items: [String]) -> String {
        guard let last = items.last, items.count > 1 else { return items.joined() }
        return items.dropLast().joined(separator: ", ") + " and " + last
    }

    /// Every setting for `--help` and `thumbd settings`: its flag, help, environment names, default
    /// and range.
    static var help: String { help(Settings.declared, header: precedence) }

    /// The settings `command` takes as flags, for its `--help`, as `help` lists them.
    static func help(for command: String) -> String {
        guard case .only = taken(by: command) else { return help }
        return help(settings(for: command),
                    header: "these as flags, every other setting from the environment and the settings file; " + precedence)
    }

    private static let precedence = "a flag wins over THUMBD_, which wins over IMGPROXY_, which wins over the settings file."

    private static func help(_ settings: [Setting<Settings>], header: String) -> String {
        var lines = wrapped("SETTINGS: " + header, indent: "")
        for setting in settings {
            let value: String = switch setting.kind {
            case .flag: ""
            case .boolean: " <true|false>"
            case .integer, .decimal, .text: " <value>"
            }
            lines.append("  --\(setting.flag)\(value)")
            lines += wrapped(setting.helpLine(defaults: Settings.defaults), indent: "      ")
        }
        return lines.joined(separator: "\n")
    }

    /// `text` in lines that fit argument-parser's 80 columns with `indent`: it would wrap longer
    /// ones itself, back to the left margin.
    private static func wrapped(_ text: String, indent: String) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, indent.count + line.count + 1 + word.count > 79 {
                lines.append(indent + line)
                line = ""
            }
            line += line.isEmpty ? String(word) : " " + word
        }
        return line.isEmpty ? lines : lines + [indent + line]
    }
}

extension Settings {
    /// The settings of this command line: the given flags (the settings' own, or a command's few),
    /// then the environment and settings file. On any problem, lists them all and exits 2. What
    /// serves or signs URLs needs a key or insecure mode too.
    public static func commandLine(flags: [String: String] = SettingFlags.given, signingURLs: Bool = false) throws -> Settings {
        switch SettingSources(flags: flags).load() {
        case .success(let settings):
            guard signingURLs, let problem = settings.signingProblem else { return settings }
            StandardError.write("thumbd: invalid configuration:\n\(problem)\n")
            throw ExitCode(2)
        case .failure(let problems):
            StandardError.write("thumbd: invalid configuration:\n\(problems)\n")
            throw ExitCode(2)
        }
    }
}
