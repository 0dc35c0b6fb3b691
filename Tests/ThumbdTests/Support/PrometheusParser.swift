import Foundation

/// prometheus_client's parser (Debian's python3-prometheus-client), the one Python exporters
/// and tools use, run on a scrape; what it read, as JSON.
enum PrometheusParser {
    struct Family: Decodable {
        let type: String
        let help: String
        let samples: [Sample]

        /// The value of the sample named `name` with these labels.
        func value(_ name: String, outcome: String? = nil, le: String? = nil) -> Double? {
            samples.first { $0.name == name && $0.labels["outcome"] == outcome && $0.labels["le"] == le }?.value
        }
    }

    struct Sample: Decodable {
        let name: String
        let labels: [String: String]
        let value: Double
    }

    static let script = """
    import json, sys
    from prometheus_client.parser import text_string_to_metric_families
    families = {f.name: {"type": f.type, "help": f.documentation,
                         "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in f.samples]}
                for f in text_string_to_metric_families(sys.stdin.read())}
    json.dump(families, sys.stdout)
    """

    static func parse(_ text: [UInt8]) throws -> [String: Family] {
        let parsed = try ProcessRunner.run("/usr/bin/python3", ["-c", script], input: text)
        guard parsed.status == 0 else { throw StackError("the Prometheus parser refused the scrape: \(parsed.errors)") }
        return try JSONDecoder().decode([String: Family].self, from: Data(parsed.output.utf8))
    }
}
