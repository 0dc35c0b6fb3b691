import ArgumentParser
import Foundation
import ThumbRuntime

/// The settings' flags, derived from the declarations: `--max-src-file-size 1048576`,
/// `--listen=unix:/run/t.sock`, and switches such as `--insecure` that take no value.
/// ArgumentParser keeps the subcommands and their own options; the settings' flags are taken out
/// of the arguments before it parses them (`Thumbd.main`), so every setting has a flag without a
/// property written for it, and `--help` lists them from the same declarations.
public enum SettingFlags {
    /// The settings' flags given to this process, by setting name: `Thumbd.main` takes them out of
    /// the arguments and runs the command with them bound here.
    @TaskLocal public static var given: [String: String] = [:]

    /// The subcommands that take every setting as a flag; `cache` and `warm` take a few of their
    /// own (warm's --timeout is not TIMEOUT) and read the rest from the environment.
    static let commands: Set<String> = ["serve", "sign", "render"]

    /// Whether the settings' flags are taken out of these arguments: for the commands above,
    /// named or (serve) by default.
    static func apply(to arguments: [String]) -> Bool {
        guard let first = arguments.first, !first.hasPrefix("-") else { return true }
        return commands.contains(first)
    }

    private static let byFlag = Dictionary(uniqueKeysWithValues: Settings.declared.map { ($0.flag, $0) })

    /// The settings' flags with their values, by setting name, and every other argument in order
    /// for ArgumentParser.
    static func split(_ arguments: [String]) throws -> (settings: [String: String], rest: [String]) {
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

    /// Every setting for `--help`: its flag, help, environment names, default and range.
    static var help: String {
        var lines = wrapped("SETTINGS: a flag wins over THUMBD_, which wins over IMGPROXY_, which wins over the settings file.",
                            indent: "")
        for setting in Settings.declared {
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
