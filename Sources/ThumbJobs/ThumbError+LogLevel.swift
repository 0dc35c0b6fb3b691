import Logging
import ThumbRuntime

extension ThumbError {
    /// How loud its log line is, given the status the server answers it with: thumbd's own
    /// failures and the origins' are worth a look, a refused source may be an attack, a client's
    /// mistake is routine.
    public func logLevel(status: Int) -> Logger.Level {
        if status >= 500 { return .warning }
        if case .sourceNotAllowed = self { return .notice }
        return .info
    }
}
