#if canImport(Glibc)
import Glibc
#endif

/// The index hashes of the lines of nginx's hits log, kept by each line's bytes: nginx logs the same
/// popular paths over and over, and hashing one (FNV-1a, a byte at a time) was most of what reading
/// the log cost thumbd (0.27 s of CPU for a million hits). A line seen before costs a compare.
/// Direct-mapped: a slot holds the last line that fell into it.
struct LineHashes {
    private static let slotCount = 1024
    private var lines = [[UInt8]](repeating: [], count: slotCount)
    private var hashes = [UInt64](repeating: 0, count: slotCount)

    /// `FNV1a.hash64(line)`, from the slot where `line` was kept if it was.
    mutating func hash(of line: UnsafeRawBufferPointer) -> UInt64 {
        guard !line.isEmpty else { return FNV1a.hash64(line) }
        let slot = Self.slot(of: line)
        if hashes[slot] != 0, lines[slot].count == line.count,
           lines[slot].withUnsafeBytes({ memcmp($0.baseAddress!, line.baseAddress!, line.count) == 0 }) {
            return hashes[slot]
        }
        let hash = FNV1a.hash64(line)
        lines[slot] = Array(line)
        hashes[slot] = hash
        return hash
    }

    /// From the length and the bytes at both ends: a path's name begins with its signature, which
    /// differs from one URL to the next, and ends with its format.
    private static func slot(of line: UnsafeRawBufferPointer) -> Int {
        var key = UInt64(line.count)
        for byte in line.prefix(8) { key = key &* 31 &+ UInt64(byte) }
        for byte in line.suffix(8) { key = key &* 31 &+ UInt64(byte) }
        return Int(truncatingIfNeeded: key ^ (key >> 17)) & (slotCount - 1)
    }
}
