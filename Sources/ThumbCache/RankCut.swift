/// Where to cut a ranking of the index's slots (oldest first, least asked for first, ...), found in
/// a few passes over the slots with memory that does not grow with them: each pass counts the
/// slots whose rank is in the range still open into at most `binCount` bins, and narrows the range
/// to the bin the cut falls in, until that bin is one rank wide. A range of 2^32 ranks (49 days of
/// milliseconds) takes two passes.
///
/// The slots are read without the lock, so a slot may move between passes (a hit makes it newer):
/// the cut is then a little off, never out of bounds.
struct RankCut {
    /// What a slot weighs: its blocks and one entry.
    struct Amount: Equatable {
        var bytes: UInt64 = 0
        var entries = 0

        static func + (lhs: Amount, rhs: Amount) -> Amount {
            Amount(bytes: lhs.bytes &+ rhs.bytes, entries: lhs.entries &+ rhs.entries)
        }

        static let none = Amount()
    }

    enum Goal {
        /// The fewest lowest ranks that hold at least this much (a slot of the cut's rank goes).
        case atLeast(Amount)
        /// The most lowest ranks that hold no more than this (a slot of the cut's rank stays).
        case atMost(Amount)
    }

    static let binCount = 65_536

    private let goal: Goal
    private var low: UInt64
    private var high: UInt64
    private var width: UInt64 = 1
    /// What the ranks below `low` hold, as the passes so far counted it.
    private var below = Amount.none
    private var bytes: [UInt64] = []
    private var entries: [Int] = []
    /// Slots of a rank below it are taken; nil while passes are still needed.
    private(set) var end: UInt64?
    /// What the taken slots hold, as counted.
    private(set) var taken = Amount.none

    /// A cut of the ranks in `ranks`; a goal of nothing takes nothing (every slot is an entry),
    /// without a pass.
    init(_ goal: Goal, ranks: ClosedRange<UInt64>) {
        self.goal = goal
        low = ranks.lowerBound
        high = ranks.upperBound
        switch goal {
        case .atLeast(let amount), .atMost(let amount): if amount == .none { end = low }
        }
        if end == nil { startPass() }
    }

    var isDone: Bool { end != nil }

    /// Whether a slot of this rank is taken; only once done.
    func takes(_ rank: UInt64) -> Bool { rank < (end ?? 0) }

    /// Counts one slot in the pass under way; slots outside the open range were counted before.
    mutating func count(_ rank: UInt64, _ amount: Amount) {
        guard end == nil, rank >= low, rank <= high else { return }
        let bin = Int((rank - low) / width)
        bytes[bin] &+= amount.bytes
        entries[bin] &+= amount.entries
    }

    /// Ends a pass: the cut is found, or the open range narrows to the bin it falls in.
    mutating func finishPass() {
        guard end == nil else { return }
        var sum = below
        for bin in 0..<bytes.count {
            let next = sum + Amount(bytes: bytes[bin], entries: entries[bin])
            if passes(next) {
                let start = low + UInt64(bin) * width
                if width == 1 {
                    if case .atLeast = goal {
                        finish(at: start + 1, taken: next)
                    } else {
                        finish(at: start, taken: sum)
                    }
                } else {
                    below = sum
                    high = min(high, start + (width - 1))
                    low = start
                    startPass()
                }
                return
            }
            sum = next
        }
        // The goal is never reached: every slot in the range is taken.
        finish(at: high &+ 1, taken: sum)
    }

    /// Whether `sum` reaches an at-least goal, or goes past an at-most one.
    private func passes(_ sum: Amount) -> Bool {
        switch goal {
        case .atLeast(let need): sum.bytes >= need.bytes && sum.entries >= need.entries
        case .atMost(let room): sum.bytes > room.bytes || sum.entries > room.entries
        }
    }

    private mutating func startPass() {
        let span = high - low
        width = span / UInt64(Self.binCount) + 1
        let count = Int(span / width) + 1
        bytes = [UInt64](repeating: 0, count: count)
        entries = [Int](repeating: 0, count: count)
    }

    private mutating func finish(at end: UInt64, taken: Amount) {
        self.end = end
        self.taken = taken
        bytes = []
        entries = []
    }
}
