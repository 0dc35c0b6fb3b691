import ArgumentParser
import Foundation
import Testing
import ThumbdTestSupport
@testable import thumbd

/// Every setting, URL option and subcommand the docs name is the code's, and the code's are all in
/// the docs: read from the code's own lists (`Settings.declared`, `OptionName.allCases`, the
/// commands' configurations), so a name added, renamed or misspelt on either side fails here.
@Suite(.timeLimit(.minutes(1)))
struct DocsAgreeWithCodeTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// README.md and docs/*.md, by path.
    static func userDocs() throws -> [String: String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        var texts: [String: String] = [:]
        for path in ["README.md"] + docs {
            texts[path] = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        }
        return texts
    }

    @Test func everySettingNamedInTheDocsExists() throws {
        let problems = DocsVocabulary.settingProblems(try Self.userDocs())
        #expect(problems.isEmpty, "\n\(problems.joined(separator: "\n"))")
    }

    @Test func everySettingIsDocumented() throws {
        let text = try Self.userDocs().values.joined(separator: "\n")
        for setting in Settings.declared {
            for name in setting.environmentNames {
                #expect(DocsVocabulary.mentions(text, name), "\(name) is in no doc")
            }
        }
    }

    @Test func everyCommandInTheDocsExistsWithItsFlags() throws {
        let problems = DocsVocabulary.commandProblems(try Self.userDocs())
        #expect(problems.isEmpty, "\n\(problems.joined(separator: "\n"))")
    }

    @Test func everySubcommandIsDocumented() throws {
        let documented = DocsVocabulary.commandsUsed(try Self.userDocs())
        for path in DocsVocabulary.commandPaths(Thumbd.self) {
            #expect(documented.contains(path), "`thumbd \(path)` is in no doc")
        }
    }

    @Test func theURLOptionTablesAreTheParsersOptions() throws {
        let urls = try String(contentsOf: Self.root.appendingPathComponent("docs/urls.md"), encoding: .utf8)
        let problems = DocsVocabulary.optionTableProblems(urls)
        #expect(problems.isEmpty, "\n\(problems.joined(separator: "\n"))")
    }

    @Test func theThreadMapNamesEveryThreadTheRuntimeStarts() throws {
        let page = try String(contentsOf: Self.root.appendingPathComponent("docs/how-it-works.md"), encoding: .utf8)
        let problems = DocsVocabulary.threadMapProblems(page)
        #expect(problems.isEmpty, "\n\(problems.joined(separator: "\n"))")
    }

    /// Each change below, made in a copy of the page, is reported by name.
    @Test(arguments: [
        ("| `thumbd-hits` |", "| `thumbd-hit` |", "thumbd-hit,"),
        ("| `thumbd-hits` |", "| hits |", "thumbd-hits 0 times"),
        ("| `thumbd-worker-N` |", "| `thumbd-worker-N`, `thumbd-worker-N` |", "thumbd-worker-N 2 times"),
        ("## Thread map", "## Threads", "no section"),
    ])
    func aThreadMapThatDriftsIsReported(original: String, drift: String, reported: String) throws {
        let page = try String(contentsOf: Self.root.appendingPathComponent("docs/how-it-works.md"), encoding: .utf8)
        let text = page.replacingOccurrences(of: original, with: drift)
        #expect(text != page)
        let problems = DocsVocabulary.threadMapProblems(text)
        #expect(problems.contains { $0.contains(reported) }, "\(problems)")
    }

    @Test func ciRunsTheTestCommandTheReadmeGives() throws {
        // Given the README's "Two commands" block and CI's script
        let readme = MarkdownCode(try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8))
        let ci = try String(contentsOf: Self.root.appendingPathComponent(".ci/run"), encoding: .utf8)
            .components(separatedBy: "\n")

        // Then both set-up commands are there, and CI runs the test command as the README writes it
        #expect(readme.commandLines.contains("deploy/run"))
        #expect(readme.commandLines.contains("deploy/test"))
        #expect(ci.contains("deploy/test"))
    }

    /// The checks catch a typo: each below, made in a copy of the docs, is reported by name.
    @Test(arguments: [
        ("`THUMBD_CACHE_MAX_BYTES`", "`THUMBD_CACHE_MAX_BYTESS`", "THUMBD_CACHE_MAX_BYTESS"),
        ("`CACHE_MAX_BYTES`", "`CACHE_MAX_BYTE`", "CACHE_MAX_BYTE"),
        ("`IMGPROXY_WORKERS`", "`IMGPROXY_WORKER`", "IMGPROXY_WORKER"),
        ("thumbd cache purge --source", "thumbd cache prune --source", "thumbd cache prune"),
        ("thumbd cache purge --source", "thumbd cache purge --sources", "--sources"),
        ("thumbd nginx-config site --server-name", "thumbd nginx-config site --server-name --listen 80 --x",
         "--server-name needs a value"),
        ("`thumbd sign` signs", "`thumbd sing` signs", "thumbd sing"),
    ])
    func aTypoInTheDocsIsReported(original: String, typo: String, reported: String) throws {
        // Given the docs with one typo
        var docs = try Self.userDocs()
        let path = try #require(docs.first { $0.value.contains(original) }?.key, "no doc has \(original)")
        docs[path] = docs[path]?.replacingOccurrences(of: original, with: typo)

        // Then a check names it
        let problems = DocsVocabulary.settingProblems(docs) + DocsVocabulary.commandProblems(docs)
        #expect(problems.contains { $0.contains(reported) }, "\(problems)")
    }

    @Test(arguments: [("/ `rs` |", "/ `rz` |", "rz"), ("`resize:", "`resise:", "resise"), ("/ `rt` |", "|", "rt")])
    func aTypoInTheOptionTablesIsReported(original: String, typo: String, reported: String) throws {
        let urls = try String(contentsOf: Self.root.appendingPathComponent("docs/urls.md"), encoding: .utf8)
        let text = urls.replacingOccurrences(of: original, with: typo)
        #expect(text != urls)
        #expect(DocsVocabulary.optionTableProblems(text).contains { $0.contains(reported) })
    }
}
