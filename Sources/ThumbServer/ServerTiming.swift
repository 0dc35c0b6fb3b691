import Foundation

/// How an answer says where it came from, in a header a page's scripts can read too:
/// `Server-Timing: thumbd;desc=miss` when thumbd made the thumbnail for this very request,
/// `desc=fallback` for the fallback image, `desc=hit` when thumbd found it stored; none when
/// nginx served the file by itself. `thumbd warm` and the demo page count by it.
public enum ServerTiming {
    public static let name = "Server-Timing"

    public enum Mark: String, Sendable {
        case miss
        case hit
        case fallback

        /// The header's value thumbd sends (NginxSite writes the same for stored files).
        public var header: String { "thumbd;desc=\(rawValue)" }
    }

    /// thumbd's mark in a response's Server-Timing fields, if any. A field is a comma-separated
    /// list of metrics, each `name;param=value;...`, values maybe quoted (W3C Server Timing), so
    /// a proxy that adds metrics of its own does not hide it.
    public static func mark(in fields: [String]) -> Mark? {
        for metric in fields.lazy.flatMap({ $0.split(separator: ",") }) {
            let parts = metric.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.first == "thumbd" else { continue }
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if pair.count == 2, pair[0].lowercased() == "desc", let mark = Mark(rawValue: String(unquoted(pair[1]))) {
                    return mark
                }
            }
        }
        return nil
    }

    private static func unquoted(_ value: String) -> Substring {
        value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"") ? value.dropFirst().dropLast() : Substring(value)
    }
}
