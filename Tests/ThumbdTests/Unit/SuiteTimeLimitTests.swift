import Foundation
import Testing
import ThumbdTestSupport

/// Every suite is time-limited, so that a test that hangs on this shared machine fails by name
/// instead of holding CI until its own limit: a file of tests names `.timeLimit`, or extends a
/// suite whose file does.
@Suite(.timeLimit(.minutes(1)))
struct SuiteTimeLimitTests {
    @Test func everyFileOfTestsIsInATimeLimitedSuite() throws {
        let tests = TestStack.repositoryRoot + "/Tests"
        let paths = try FileManager.default.subpathsOfDirectory(atPath: tests).filter { $0.hasSuffix(".swift") }
        var limited: Set<String> = []
        var extensions: [(path: String, extended: String)] = []
        for path in paths {
            let text = try String(contentsOfFile: tests + "/" + path, encoding: .utf8)
            guard text.contains("@Test") else { continue }
            let declared = text.split(separator: "\n").first { $0.hasPrefix("struct ") || $0.hasPrefix("final class ")
                || $0.hasPrefix("@Suite") || $0.hasPrefix("extension ") }.map(String.init) ?? ""
            if text.contains(".timeLimit(") {
                let name = text.firstMatch(of: /(?:struct|class) (\w+)/).map { String($0.1) }
                if let name { limited.insert(name) }
            } else if declared.hasPrefix("extension ") {
                extensions.append((path, String(declared.dropFirst("extension ".count).prefix { $0.isLetter || $0.isNumber })))
            } else {
                Issue.record("\(path): its suite has no time limit")
            }
        }
        for (path, extended) in extensions where !limited.contains(extended) {
            Issue.record("\(path) extends \(extended), which has no time limit")
        }
    }
}
