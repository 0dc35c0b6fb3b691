/// How log lines are written (imgproxy's LOG_FORMAT): `pretty` for a person at a terminal,
/// `structured` (logfmt: `key=value` pairs) and `json` (one object a line) for log pipelines,
/// `gcp` for Google Cloud Logging's JSON (`severity`, `message`).
public enum LogFormat: String, CaseIterable, Sendable {
    case pretty
    case structured
    case json
    case gcp
}
