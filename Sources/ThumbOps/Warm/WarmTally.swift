import Foundation

/// What `thumbd warm` has seen so far, and the summary it ends with.
public struct WarmTally: Sendable {
    /// The paths to ask for.
    public let total: Int
    public private(set) var made = 0
    public private(set) var alreadyCached = 0
    public private(set) var failedByStatus: [Int: Int] = [:]
    public private(set) var fallbacks = 0
    public private(set) var unreachable = 0
    public private(set) var abandoned = 0

    public init(total: Int) {
        self.total = total
    }

    public mutating func add(_ result: WarmResult) {
        switch result {
        case .made: made += 1
        case .alreadyCached: alreadyCached += 1
        case .failed(let status): failedByStatus[status, default: 0] += 1
        case .fallback: fallbacks += 1
        case .unreachable: unreachable += 1
        case .abandoned: abandoned += 1
        }
    }

    public var failed: Int { failedByStatus.values.reduce(0, +) + fallbacks + unreachable }

    /// Paths asked for and answered, or given up on.
    public var done: Int { made + alreadyCached + failed + abandoned }

    /// `404: 3, 422: 1, fallback image: 1, connection errors: 2`, statuses in order.
    public var failures: String {
        let statuses = failedByStatus.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        let others = [("fallback image", fallbacks), ("connection errors", unreachable)].filter { $0.1 > 0 }.map { "\($0.0): \($0.1)" }
        return (statuses + others).joined(separator: ", ")
    }

    /// The counts, how many of how many in how long, and, when stopped early, what was not asked for.
    public func summary(duplicates: Int, seconds: Double, interrupted: Bool) -> String {
        var lines = ["made \(made), already cached \(alreadyCached), failed \(failed)" + (failed > 0 ? " (\(failures))" : "")]
        let skipped = duplicates == 0 ? "" : ", \(duplicates) duplicate\(duplicates == 1 ? "" : "s") skipped"
        let count = done == total ? "\(total)" : "\(done) of \(total)"
        lines.append("\(count) thumbnails in \(String(format: "%.1f", seconds)) s\(skipped)")
        if interrupted {
            let abandonedNote = abandoned > 0 ? ", \(abandoned) abandoned in flight" : ""
            lines.append("interrupted: \(total - done) not asked for\(abandonedNote)")
        }
        return lines.joined(separator: "\n")
    }
}
