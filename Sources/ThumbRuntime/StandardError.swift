#if canImport(Glibc)
import Glibc
#endif

/// Standard error, written so that a failed write never stops thumbd. Foundation's
/// `FileHandle.write` traps when a write fails, and a log reader that went away (deploy/run's tee
/// ended by the terminal's Ctrl-C, a log collector restarted) fails every write with EPIPE, since
/// the server ignores SIGPIPE: its next log line took the service down, mid-request. What cannot be
/// written is dropped.
public enum StandardError {
    public static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}
