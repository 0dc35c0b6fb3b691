import Foundation

/// How a thumbnail made for this very request (a miss) is told from one that was there already
/// (a hit): a miss's answer carries `Server-Timing: thumbd;desc=miss`; a hit's carries no thumbd
/// metric (nginx served the file) or another description. `thumbd warm` counts by it.
public enum ServerTiming {
    public static let name = "Server-Timing"
    public static let miss = "thumbd;desc=miss"

    /// Whether any of a response's Server-Timing fields names thumbd's miss. A field is a
    /// comma-separated list of metrics, each `name;param=value;...`, values maybe quoted
    /// (W3C Server Timing), so a proxy that adds metrics of its own does not hide it.
    public static func marksMiss(_ fields: [String]) -> Bool {
        fields.lazy.flatMap { $0.split(separator: ",") }.contains { metric in
            let parts = metric.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.first == "thumbd" else { return false }
            return parts.dropFirst().contains { parameter in
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                return pair.count == 2 && pair[0].lowercased() == "desc" && unquoted(pair[1]) == "miss"
            }
        }
    }

    private static func unquoted(_ value: String) -> Substring {
        value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"") ? value.dropFirst().dropLast() : Substring(value)
    }
}
