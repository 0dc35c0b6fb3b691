import Foundation
import Testing

/// deploy/grafana/thumbd.json asks only for metrics thumbd exports: every metric name in every
/// panel's PromQL is a sample of a real scrape.
@Suite(.blocking, .timeLimit(.minutes(2)))
struct GrafanaDashboardTests {
    static let path = TestStack.repositoryRoot + "/deploy/grafana/thumbd.json"

    @Test func everyMetricTheDashboardAsksForIsOneThumbdExports() throws {
        // Given a scrape of a thumbd that made a thumbnail and answered an error (so that the
        // families counted by label have samples)
        let origin = try TestOrigin()
        origin.serve("/photo.jpg", .image(TestImages.jpeg(width: 300, height: 200)))
        origin.serve("/none.jpg", .status(404))
        let stack = try TestStack()
        defer { stack.shutdown() }
        #expect(try stack.get("/insecure/w:100/plain/\(origin.url("/photo.jpg"))@png").status == 200)
        #expect(try stack.get("/insecure/w:100/plain/\(origin.url("/none.jpg"))@png").status == 404)
        let scrape = try PrometheusParser.parse(try stack.scrape().body)
        let exported = Set(scrape.values.flatMap { $0.samples.map(\.name) })

        // When every expression of the dashboard is read
        let dashboard = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Self.path)))
            as? [String: Any])
        let expressions = Self.expressions(in: dashboard)

        // Then each names at least one metric, and each metric it names is exported
        #expect(expressions.count >= 20)
        for expression in expressions {
            let names = Self.metricNames(in: expression)
            #expect(!names.isEmpty, "\(expression)")
            for name in names { #expect(exported.contains(name), "\(name) in \(expression)") }
        }
    }

    @Test func theMetricNamesArePickedOutOfPromQL() {
        let expression = #"histogram_quantile(0.99, sum by (le, span) (rate(thumbd_x_bucket{span="processing",outcome!~"a|b"}[$__rate_interval])))"#
            + " / on (instance) group_left sum without (job) (up offset 5m) and bool process_open_fds"
        #expect(Self.metricNames(in: expression) == ["thumbd_x_bucket", "up", "process_open_fds"])
    }

    /// Every `expr` of every panel's targets, rows' panels included.
    static func expressions(in object: Any) -> [String] {
        if let list = object as? [Any] { return list.flatMap { expressions(in: $0) } }
        guard let dictionary = object as? [String: Any] else { return [] }
        return dictionary.flatMap { key, value in
            key == "expr" ? [value as? String].compactMap { $0 } : expressions(in: value)
        }
    }

    /// The metric names of a PromQL expression, in order: what is left of its identifiers once
    /// strings, label matchers, ranges, grouping clauses, functions, keywords and numbers are not.
    static func metricNames(in expression: String) -> [String] {
        var text = expression
        for pattern in [#""[^"]*""#, #"\{[^}]*\}"#, #"\[[^\]]*\]"#,
                        #"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)"#] {
            text = text.replacingOccurrences(of: pattern, with: " ", options: .regularExpression)
        }
        let keywords: Set = ["by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or",
                             "unless", "offset", "inf", "nan"]
        let identifier = try! NSRegularExpression(pattern: #"[A-Za-z_:][A-Za-z0-9_:]*(\s*\()?"#)
        let whole = NSRange(text.startIndex..., in: text)
        return identifier.matches(in: text, range: whole).compactMap { match in
            guard match.range(at: 1).location == NSNotFound, let range = Range(match.range, in: text) else { return nil }
            // A number's exponent (1e3) or a duration (5m) starts inside a number.
            if range.lowerBound > text.startIndex, text[text.index(before: range.lowerBound)].isNumber { return nil }
            let name = String(text[range])
            return keywords.contains(name.lowercased()) ? nil : name
        }
    }
}
