import Foundation
import Synchronization
import ThumbRuntime
#if canImport(Glibc)
import Glibc
#endif

/// What `thumbd warm` shows on standard error while it works: on a terminal, a bar redrawn in
/// place, with failures listed above it; otherwise a line per thumbnail, for logs and pipes.
public final class WarmProgress: Sendable {
    public enum Style: Sendable, Equatable {
        case bar(columns: Int)
        case lines
    }

    /// What the bar shows, and when it was last drawn.
    private struct Shown {
        var tally: WarmTally
        var lastDrawn: UInt64 = 0
    }

    private let style: Style
    /// Held while writing too, so that lines and redraws never interleave.
    private let shown: Mutex<Shown>

    public init(style: Style, total: Int) {
        self.style = style
        shown = Mutex(Shown(tally: WarmTally(total: total)))
    }

    /// A bar as wide as the terminal when standard error is one, else lines.
    public static var standardErrorStyle: Style {
        guard isatty(STDERR_FILENO) == 1 else { return .lines }
        var size = winsize()
        let measured = ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0
        return .bar(columns: measured ? Int(size.ws_col) : 80)
    }

    /// An empty bar at once, so a terminal shows something before the first answer.
    public func start() {
        shown.withLock { shown in
            guard case .bar(let columns) = style else { return }
            Self.drawBar(&shown, columns: columns)
        }
    }

    public func record(_ path: String, _ result: WarmResult, _ tally: WarmTally) {
        shown.withLock { shown in
            shown.tally = tally
            switch style {
            case .lines:
                Self.write(Self.line(path, result) + "\n")
            case .bar(let columns):
                let isFailure = switch result {
                case .failed, .fallback, .unreachable: true
                case .made, .alreadyCached, .abandoned: false
                }
                if isFailure {
                    Self.write(Self.clearLine + Self.line(path, result) + "\n")
                    Self.drawBar(&shown, columns: columns)
                } else if DispatchTime.now().uptimeNanoseconds - shown.lastDrawn > 100_000_000 || tally.done == tally.total {
                    Self.drawBar(&shown, columns: columns)
                }
            }
        }
    }

    /// A line of its own, above the bar on a terminal.
    public func note(_ message: String) {
        shown.withLock { shown in
            switch style {
            case .lines:
                Self.write(message + "\n")
            case .bar(let columns):
                Self.write(Self.clearLine + message + "\n")
                Self.drawBar(&shown, columns: columns)
            }
        }
    }

    /// Leaves the bar's last state on its line, so what follows starts on the next.
    public func finish() {
        shown.withLock { shown in
            guard case .bar(let columns) = style else { return }
            Self.drawBar(&shown, columns: columns)
            Self.write("\n")
        }
    }

    /// `made /sig/...`, `cached /sig/...`, `failed 404 /sig/...`, `failed (reason) /sig/...`.
    static func line(_ path: String, _ result: WarmResult) -> String {
        switch result {
        case .made: "made \(path)"
        case .alreadyCached: "cached \(path)"
        case .failed(let status): "failed \(status) \(path)"
        case .fallback: "failed (fallback image) \(path)"
        case .unreachable(let reason): "failed (\(reason)) \(path)"
        case .abandoned: "abandoned \(path)"
        }
    }

    /// `[#####.....] 12/40  made 10  cached 1  failed 1`, cut to the terminal's width so that
    /// it never wraps (a wrapped line cannot be redrawn in place).
    static func bar(_ tally: WarmTally, columns: Int) -> String {
        let counts = " \(tally.done)/\(tally.total)  made \(tally.made)  cached \(tally.alreadyCached)  failed \(tally.failed)"
        let width = min(40, max(10, columns - counts.count - 3))
        let filled = tally.total == 0 ? width : width * tally.done / tally.total
        let bar = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]" + counts
        return String(bar.prefix(max(1, columns - 1)))
    }

    /// Carriage return, then erase to the end of the line (ANSI).
    private static let clearLine = "\r\u{1B}[K"

    private static func drawBar(_ shown: inout Shown, columns: Int) {
        write(clearLine + bar(shown.tally, columns: columns))
        shown.lastDrawn = DispatchTime.now().uptimeNanoseconds
    }

    private static func write(_ text: String) {
        StandardError.write(text)
    }
}
