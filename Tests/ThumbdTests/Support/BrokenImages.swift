/// Sources damaged the ways files arrive damaged, each still half-read by its decoder: scan
/// data overwritten, a chunk whose checksum fails, a header naming what no decoder knows; and
/// one that is merely irregular.
enum BrokenImages {
    /// `jpeg` with 30 bytes in the middle of the entropy-coded data of its `scan`th scan (0 is
    /// the first) changed, making no marker.
    static func jpeg(_ jpeg: [UInt8], corruptingScan scan: Int) -> [UInt8] {
        let data = scanData(of: jpeg)[scan]
        var damaged = jpeg
        var changed = 0
        for at in data.lowerBound + data.count / 2..<data.upperBound where changed < 30 {
            // 0xFF starts a marker (or is followed by a stuffed zero); 0xCC would become 0xFF.
            guard damaged[at] != 0xFF, damaged[at - 1] != 0xFF, damaged[at] != 0xCC else { continue }
            damaged[at] ^= 0x33
            changed += 1
        }
        precondition(changed == 30, "scan \(scan) is too short to damage")
        return damaged
    }

    /// `jpeg` with padding before its end marker: libjpeg notes extraneous bytes and skips them.
    static func jpegPaddedBeforeItsEnd(_ jpeg: [UInt8]) -> [UInt8] {
        precondition(jpeg.suffix(2) == [0xFF, 0xD9])
        // More than the few bytes the entropy decoder reads ahead, which it does not count.
        return Array(jpeg.dropLast(2)) + [UInt8](repeating: 0, count: 16) + [0xFF, 0xD9]
    }

    /// The range of each scan's entropy-coded data, in file order.
    private static func scanData(of jpeg: [UInt8]) -> [Range<Int>] {
        var scans: [Range<Int>] = []
        var at = 2
        while at + 4 <= jpeg.count, jpeg[at] == 0xFF, jpeg[at + 1] != 0xD9 {
            let end = at + 2 + (Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3]))
            guard jpeg[at + 1] == 0xDA else {
                at = end
                continue
            }
            // The data runs to the next marker: an 0xFF followed by neither a stuffed zero nor a restart.
            var next = end
            while next + 1 < jpeg.count,
                  !(jpeg[next] == 0xFF && jpeg[next + 1] != 0 && !(0xD0...0xD7).contains(jpeg[next + 1])) {
                next += 1
            }
            scans.append(end..<next)
            at = next
        }
        return scans
    }
}
