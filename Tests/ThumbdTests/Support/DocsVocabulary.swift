import ArgumentParser
import Foundation
import ThumbFetch
import ThumbRuntime
@testable import ThumbRequest
@testable import thumbd

/// The names the docs use, read out of their markdown, and what is wrong with them.
enum DocsVocabulary {
    /// THUMBD_ and IMGPROXY_ names: the settings', the scripts' own, and imgproxy's documented
    /// settings (which thumbd refuses by name, so the docs may name them).
    static let environmentNames: Set<String> = Set(Settings.declared.flatMap(\.environmentNames))
        .union(EnvironmentNames.scripts)
        .union(ImgproxySettings.documented.map { "IMGPROXY_" + $0 })

    /// Setting names without a prefix (`MAX_SRC_FILE_SIZE`), as the docs write them in code spans.
    static let settingNames: Set<String> = Set(Settings.declared.map(\.name))
        .union(Settings.declared.compactMap(\.imgproxyName))
        .union(ImgproxySettings.documented)

    /// Upper-case words the docs put in code that are not settings.
    static let notSettings: Set<String> = Set([
        "THUMBD_NAME", // the placeholder in `THUMBD_NAME=value`
        "HTTPS_PROXY", "ALL_PROXY", // libcurl's environment, which SOURCE_PROXY replaces
        "TRUE", "RRGGBB", // a boolean's and a colour's spelling
        // the environment the unit gives thumbd, ImageMagick and libdispatch
        "HOME", "MAGICK_CONFIGURE_PATH", "LIBDISPATCH_LOG",
    ]).union(S3CredentialChain.environmentNames) // the AWS credential chain's, read as an AWS SDK reads them

    /// Every `THUMBD_X`/`IMGPROXY_X` in the text (but an example of a misspelt one, followed by
    /// `: no such setting`), and every code span that is a bare upper-case name, must exist.
    static func settingProblems(_ docs: [String: String]) -> [String] {
        var problems: [String] = []
        let prefixed = /(?:THUMBD|IMGPROXY)_[A-Z0-9_]*[A-Z0-9](?![A-Za-z0-9_])(?!: no such)/
        for (path, text) in docs.sorted(by: { $0.key < $1.key }) {
            for match in text.matches(of: prefixed) where !environmentNames.contains(String(match.output))
                && !notSettings.contains(String(match.output)) {
                let before = match.range.lowerBound == text.startIndex ? " " : text[text.index(before: match.range.lowerBound)]
                guard !(before.isLetter || before.isNumber || before == "_") else { continue }
                problems.append("\(path): \(match.output) is no setting")
            }
            for span in MarkdownCode(text).spans {
                let name = span.split(separator: "=", maxSplits: 1).first.map(String.init) ?? span
                guard name.wholeMatch(of: /[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*/) != nil, name.count > 2,
                      !name.hasPrefix("THUMBD_"), !name.hasPrefix("IMGPROXY_"),
                      !settingNames.contains(name), !notSettings.contains(name) else { continue }
                problems.append("\(path): `\(span)`: \(name) is no setting")
            }
        }
        return problems
    }

    static func mentions(_ text: String, _ name: String) -> Bool {
        text.ranges(of: name).contains { range in
            range.upperBound == text.endIndex || !(text[range.upperBound].isLetter || text[range.upperBound].isNumber
                || text[range.upperBound] == "_")
        }
    }

    // MARK: Subcommands

    /// `serve`, `cache`, `cache stats`, ...: every command under `command`, by its path.
    static func commandPaths(_ command: ParsableCommand.Type, prefix: String = "") -> [String] {
        command.configuration.subcommands.flatMap { sub -> [String] in
            let path = prefix + sub._commandName
            return [path] + commandPaths(sub, prefix: path + " ")
        }
    }

    /// A command line's words from `thumbd` on, for each `thumbd ...` in code spans and shell lines.
    static func thumbdCommands(_ text: String) -> [[String]] {
        let code = MarkdownCode(text)
        let lines = code.spans.filter { $0.hasPrefix("thumbd ") } + code.commandLines
        return lines.flatMap { line in
            line.components(separatedBy: "&&").flatMap { $0.components(separatedBy: "|") }.compactMap { part in
                let words = part.split(separator: " ").map(String.init)
                return words.first == "thumbd" ? Array(words.dropFirst()) : nil
            }
        }
    }

    /// The subcommand path a command line names, the command it resolves to and the words after it;
    /// a word where a subcommand must be that is none is a problem.
    static func resolve(_ words: [String]) -> (path: String, command: ParsableCommand.Type, rest: [String], problem: String?) {
        var command: ParsableCommand.Type = Thumbd.self
        var path: [String] = []
        var rest = words[...]
        while let word = rest.first, !command.configuration.subcommands.isEmpty, !word.hasPrefix("-") {
            guard let sub = command.configuration.subcommands.first(where: { $0._commandName == word }) else {
                return (path.joined(separator: " "), command, Array(rest),
                        "thumbd \((path + [word]).joined(separator: " ")): no such subcommand")
            }
            command = sub
            path.append(word)
            rest = rest.dropFirst()
        }
        if path.isEmpty, let serve = command.configuration.defaultSubcommand { command = serve }
        return (path.joined(separator: " "), command, Array(rest), nil)
    }

    static func commandsUsed(_ docs: [String: String]) -> Set<String> {
        Set(docs.values.flatMap(thumbdCommands).map { resolve($0).path })
    }

    /// Each `thumbd ...` names subcommands that exist, and flags its command's `--help` lists; a flag
    /// `--help` shows with a `<value>` has one after it.
    static func commandProblems(_ docs: [String: String]) -> [String] {
        var problems: [String] = []
        for (path, text) in docs.sorted(by: { $0.key < $1.key }) {
            for words in thumbdCommands(text) {
                let resolved = resolve(words)
                if let problem = resolved.problem {
                    problems.append("\(path): \(problem)")
                    continue
                }
                let help = Thumbd.helpMessage(for: resolved.command, columns: 10_000)
                for (index, word) in resolved.rest.enumerated() {
                    let token = word.trimmingCharacters(in: CharacterSet(charactersIn: "[],;.)"))
                    guard token.hasPrefix("--") else { continue }
                    let flag = String(token.prefix { $0 != "=" })
                    guard flag == "--help" || flag == "--version" || help.contains(wholeWord: flag) else {
                        problems.append("\(path): thumbd \(resolved.path) \(flag): no such flag")
                        continue
                    }
                    let next = resolved.rest.dropFirst(index + 1).first
                    if help.contains(flag + " <"), !token.contains("="), next == nil || next?.hasPrefix("-") == true {
                        problems.append("\(path): thumbd \(resolved.path) \(flag) needs a value")
                    }
                }
            }
        }
        return problems
    }

    // MARK: URL options

    /// The tables of docs/urls.md headed `option`: the first holds every supported option, the
    /// second every option refused by name, each with all its spellings, and nothing else.
    static func optionTableProblems(_ urls: String) -> [String] {
        let tables = MarkdownCode(urls).tables.filter { $0.first?.first == "option" }
        guard tables.count == 2 else { return ["docs/urls.md: \(tables.count) tables headed `option`, not 2"] }
        var problems: [String] = []
        for (table, supported) in zip(tables, [true, false]) {
            let documented = table.dropFirst().flatMap { row in
                MarkdownCode.codeSpans(row.first ?? "").map { String($0.prefix { $0 != ":" }) }
            }
            let expected = OptionName.allCases.filter { $0.isSupported == supported }.flatMap(\.spellings)
            for name in documented where !expected.contains(name) {
                problems.append("docs/urls.md: option \(name) is not \(supported ? "a" : "a refused") option of the parser")
            }
            for name in expected where !documented.contains(name) {
                problems.append("docs/urls.md: option \(name) is missing from the \(supported ? "" : "refused ")options")
            }
        }
        return problems
    }
}

extension DocsVocabulary {
    /// The thread map (docs/how-it-works.md's section of that name) names in its first column
    /// every thread the runtime can start, as `OwnedThread.Role.pattern` spells it, and no other.
    static func threadMapProblems(_ howItWorks: String) -> [String] {
        let page = "docs/how-it-works.md"
        let sections = howItWorks.components(separatedBy: "\n## ")
        guard let section = sections.first(where: { $0.hasPrefix("Thread map\n") }) else {
            return ["\(page): no section \"Thread map\""]
        }
        let tables = MarkdownCode(section).tables.filter { $0.first?.first == "thread" }
        guard tables.count == 1, let table = tables.first else {
            return ["\(page): \(tables.count) tables headed `thread` in the thread map, not 1"]
        }
        let documented = table.dropFirst().flatMap { row in
            MarkdownCode.codeSpans(row.first ?? "").filter { $0.hasPrefix("thumbd-") }
        }
        let started = OwnedThread.Role.allCases.map(\.pattern)
        var problems: [String] = []
        for name in documented where !started.contains(name) {
            problems.append("\(page): the thread map names \(name), which the runtime does not start")
        }
        for name in started where documented.filter({ $0 == name }).count != 1 {
            problems.append("\(page): the thread map names \(name) \(documented.filter { $0 == name }.count) times, not once")
        }
        return problems
    }
}

extension String {
    /// `--cache-root` in a help text, but not as the start of `--cache-root-x`.
    fileprivate func contains(wholeWord word: String) -> Bool {
        ranges(of: word).contains { range in
            range.upperBound == endIndex || !(self[range.upperBound].isLetter || self[range.upperBound] == "-"
                || self[range.upperBound].isNumber)
        }
    }
}
