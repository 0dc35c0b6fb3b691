import ThumbdTestSupport
import Foundation

/// prometheus_client's parser (Debian's python3-prometheus-client), the one Python exporters
/// and tools use, run on a scrape; what it read, as JSON. Families are named as it names them:
/// a counter without its `_total`.
enum PrometheusParser {
    typealias Scrape = [String: Family]

    struct Family: Decodable {
        let type: String
        let help: String
        let samples: [Sample]

        /// The value of the sample named `name` with exactly these labels.
        func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
            samples.first { $0.name == name && $0.labels == labels }?.value
        }

        /// The value of the sample named `name` with this outcome (and `le`, for a bucket).
        func value(_ name: String, outcome: String? = nil, le: String? = nil) -> Double? {
            var labels: [String: String] = [:]
            labels["outcome"] = outcome
            labels["le"] = le
            return value(name, labels)
        }
    }

    struct Sample: Decodable {
        let name: String
        let labels: [String: String]
        let value: Double
    }

    /// Reads scrapes separated by NUL bytes, so that many cost one Python start.
    static let script = """
    import json, sys
    from prometheus_client.parser import text_string_to_metric_families
    def read(text):
        return {f.name: {"type": f.type, "help": f.documentation,
                         "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in f.samples]}
                for f in text_string_to_metric_families(text)}
    json.dump([read(text) for text in sys.stdin.read().split("\\0")], sys.stdout)
    """

    static func parse(_ text: [UInt8]) throws -> Scrape {
        try parse([text])[0]
    }

    static func parse(_ texts: [[UInt8]]) throws -> [Scrape] {
        let input = Array(texts.joined(separator: [0]))
        let parsed = try ProcessRunner.run("/usr/bin/python3", ["-c", script], input: input)
        guard parsed.status == 0 else { throw StackError("the Prometheus parser refused a scrape: \(parsed.errors)") }
        return try JSONDecoder().decode([Scrape].self, from: Data(parsed.output.utf8))
    }
}
