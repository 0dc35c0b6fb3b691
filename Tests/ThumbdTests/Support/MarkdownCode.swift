import Foundation

/// The parts of a markdown page that name things in the code: its inline code spans, the command
/// lines of its shell blocks, and its tables. Enough markdown for the project's own docs, no more.
struct MarkdownCode {
    /// Inline `code`, a span broken over lines joined by a space.
    let spans: [String]
    /// Shell command lines: every line of a ```sh block (comments cut, `\` continuations joined),
    /// and `$ ` lines of any other block (a terminal session), without the `$ `.
    let commandLines: [String]
    /// Each table as rows of cells, its header first, the `---` row left out.
    let tables: [[[String]]]

    init(_ text: String) {
        var prose: [String] = []
        var commands: [String] = []
        var tables: [[[String]]] = []
        var fence: String?
        var pending = ""
        var table: [[String]] = []
        for line in text.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") {
                fence = fence == nil ? String(trimmed.dropFirst(3)) : nil
                continue
            }
            if let info = fence {
                if info == "sh" {
                    let code = Self.cuttingComment(line)
                    if code.hasSuffix("\\") {
                        pending += code.dropLast() + " "
                    } else {
                        commands.append(pending + code)
                        pending = ""
                    }
                } else if trimmed.hasPrefix("$ ") {
                    commands.append(String(trimmed.dropFirst(2)))
                }
                continue
            }
            prose.append(line)
            if trimmed.hasPrefix("|") {
                let cells = trimmed.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                if !cells.allSatisfy({ $0.allSatisfy { $0 == "-" || $0 == ":" } }) { table.append(cells) }
            } else if !table.isEmpty {
                tables.append(table)
                table = []
            }
        }
        if !table.isEmpty { tables.append(table) }
        spans = Self.codeSpans(prose.joined(separator: "\n"))
        commandLines = commands
        self.tables = tables
    }

    /// The backquoted parts of a text, single backquotes only (the docs use no others).
    static func codeSpans(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }
            .map { $0.element.replacingOccurrences(of: "\n", with: " ") }
    }

    /// A shell line without its comment: from a `#` that begins a word.
    private static func cuttingComment(_ line: String) -> String {
        var previous: Character = " "
        for (offset, character) in line.enumerated() {
            if character == "#", previous == " " {
                return String(line.prefix(offset)).trimmingCharacters(in: .whitespaces)
            }
            previous = character
        }
        return line.trimmingCharacters(in: .whitespaces)
    }
}
