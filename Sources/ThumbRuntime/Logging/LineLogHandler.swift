import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Writes each event as one line to standard error, for a person or in a format a log pipeline
/// reads (logfmt, JSON). One write per line (a pipe or the journal never interleaves two); the time is UTC with
/// milliseconds. swift-log checks the level before the handler is called and builds metadata
/// only then, so a line that is off costs nothing here. Whatever the format, no value can end its
/// line or drive a terminal: request values (a path with `%0A`) reach the log, and a newline in
/// one would forge a line of its own.
public struct LineLogHandler: LogHandler {
    let format: LogFormat
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?

    public init(format: LogFormat, logLevel: Logger.Level) {
        self.format = format
        self.logLevel = logLevel
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { $1 } }
        if let explicit = event.metadata { fields.merge(explicit) { $1 } }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let text = Self.line(format: format, time: now, level: event.level, message: event.message.description, fields: fields)
        StandardError.write(text)
    }

    /// The line for one event, its newline included.
    static func line(format: LogFormat, time: timespec, level: Logger.Level, message: String, fields: Logger.Metadata) -> String {
        let stamp = timestamp(time)
        let sorted = fields.sorted { $0.key < $1.key }.map { ($0.key, "\($0.value)") }
        switch format {
        case .structured:
            let pairs = [("time", stamp), ("level", level.rawValue), ("msg", message)] + sorted
            return pairs.map { "\($0.0)=\(logfmt($0.1))" }.joined(separator: " ") + "\n"
        case .json, .gcp:
            let head = format == .gcp
                ? [("time", stamp), ("severity", gcpSeverity(level)), ("message", message)]
                : [("time", stamp), ("level", level.rawValue), ("msg", message)]
            let pairs = head + sorted.filter { key, _ in !head.contains { $0.0 == key } }
            return "{" + pairs.map { "\(json($0.0)):\(json($0.1))" }.joined(separator: ",") + "}\n"
        case .pretty:
            // As swift-log's StreamLogHandler wrote it: the message last.
            let pairs = sorted.map { "\(escaped($0.0))=\(escaped($0.1)) " }.joined()
            return "\(stamp) \(level.rawValue) thumbd: \(pairs)\(escaped(message))\n"
        }
    }

    /// `2026-11-26T16:05:09.042Z`
    static func timestamp(_ time: timespec) -> String {
        var seconds = time.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec, time.tv_nsec / 1_000_000)
    }

    /// A logfmt value: bare when it is one plain word, else quoted with `"` and `\` escaped.
    static func logfmt(_ value: String) -> String {
        let plain = !value.isEmpty && value.unicodeScalars.allSatisfy {
            $0.value > 0x20 && !(0x7F...0x9F).contains($0.value) && $0 != "\"" && $0 != "=" && $0 != "\\"
        }
        return plain ? value : json(value)
    }

    /// A JSON string: quotes, backslashes and control characters escaped; the rest as UTF-8.
    static func json(_ value: String) -> String {
        "\"" + escaped(value, quotes: true) + "\""
    }

    /// `value` with backslashes and control characters (C0, DEL and C1, whose CSI a terminal takes
    /// as an escape sequence) written as JSON escapes: `\n`, `\u001b`. Backslashes are doubled so
    /// that a `\n` in a line is always an escape, never a value's own two characters.
    static func escaped(_ value: String, quotes: Bool = false) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"" where quotes: out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func gcpSeverity(_ level: Logger.Level) -> String {
        switch level {
        case .trace, .debug: "DEBUG"
        case .info: "INFO"
        case .notice: "NOTICE"
        case .warning: "WARNING"
        case .error: "ERROR"
        case .critical: "CRITICAL"
        }
    }
}
